import { describe, expect, it } from 'vitest';
import { classifyAddress, parseHostAddress, type AddressClass } from './index.ts';

describe('parseHostAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'], // decimal
    ['0177.0.0.1', '127.0.0.1'], // octal
    ['017700000001', '127.0.0.1'], // one octal number
    ['0x7f.0.0.1', '127.0.0.1'], // hex part
    ['0X7F.0X0.0X0.0X1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'], // one hex number
    ['0x7f.1', '127.0.0.1'], // short forms
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['192.168.257', '192.168.1.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['127.0.0.1.', '127.0.0.1'], // trailing dot
    ['0x7f.1.', '127.0.0.1'],
    ['2130706433.', '127.0.0.1'],
    [' 8.8.8.8 ', '8.8.8.8'],
    ['255.255.255.255', '255.255.255.255'],
    ['4294967295', '255.255.255.255'],
  ])('IPv4 %s -> %s', (input, expected) => {
    expect(parseHostAddress(input)).toBe(expected);
  });

  it('agrees with the WHATWG URL parser on the IPv4 forms it accepts', () => {
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.0.0.1', '0x7f000001', '127.1', '0x7f.1', '127.0.0.1.', '0', '1.2.3']) {
      expect(parseHostAddress(host), host).toBe(new URL(`http://${host}/`).hostname);
    }
  });

  it.each([
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['::', '::'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'], // IPv4-mapped, dotted
    ['::FFFF:7F00:1', '::ffff:7f00:1'], // IPv4-mapped, hex
    ['::ffff:0:10.0.0.1', '::ffff:0:a00:1'],
    ['::127.0.0.1', '::7f00:1'], // IPv4-compatible
    ['64:ff9b::192.168.0.1', '64:ff9b::c0a8:1'],
    ['fe80::1%eth0', 'fe80::1'], // zone id dropped
    ['[fe80::1%25eth0]', 'fe80::1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // first of two equal runs
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'], // longest run
    ['1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'], // a single zero group stays
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['0001:0db8::0001', '1:db8::1'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
  ])('IPv6 %s -> %s', (input, expected) => {
    expect(parseHostAddress(input)).toBe(expected);
  });

  it('agrees with the WHATWG URL parser on IPv6 serialisation', () => {
    for (const host of ['::ffff:127.0.0.1', '0:0:0:0:0:0:0:1', '2001:db8:0:0:1:0:0:1', '1:0:0:2:0:0:0:3', '64:ff9b::10.0.0.1']) {
      expect(`[${parseHostAddress(host)}]`, host).toBe(new URL(`http://[${host}]/`).hostname);
    }
  });

  it.each([
    'example.com',
    'example.com.',
    'localhost',
    'localhost.',
    '127.0.0.1.example.com',
    '1.2.3.4.5',
    '256.1.1.1',
    '1.2.3.256',
    '4294967296',
    '08.1.1.1',
    '0x7g.1',
    '1..2',
    '',
    '.',
    '[::1',
    ':::1',
    '1::2::3',
    '12345::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '::ffff:1.2.3',
    '::ffff:01.2.3.4',
    '::ffff:1.2.3.256',
    'fe80::1%',
    '[127.0.0.1]',
  ])('%j is not an address', (input) => {
    expect(parseHostAddress(input)).toBeNull();
  });
});

describe('classifyAddress', () => {
  const cases: Record<AddressClass, string[]> = {
    public: [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.0',
      '169.253.255.255',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001::1',
      '::ffff:8.8.8.8', // mapped public
      '64:ff9b::8.8.8.8', // NAT64 of a public address
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo, server 65.54.227.120, client 8.8.8.8
    ],
    loopback: [
      '127.0.0.1',
      '127.255.255.254',
      '127.1',
      '2130706433',
      '0177.0.0.1',
      '0x7f.0.0.1',
      '0x7f000001',
      '127.0.0.1.',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1',
      '[::ffff:127.0.0.1]',
      '::127.0.0.1', // IPv4-compatible
      '::7f00:1',
      '::ffff:0:127.0.0.1', // IPv4-translated
      '64:ff9b::127.0.0.1', // NAT64
      '64:ff9b::7f00:1',
      '2002:7f00:1::1', // 6to4
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo client 127.0.0.1
    ],
    private: [
      '10.0.0.1',
      '10.255.255.255',
      '012.1', // 10.0.0.1 in octal short form
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '192.168.255.255',
      '0xc0a80001',
      'fc00::1',
      'fd12:3456:789a::1',
      'fec0::1',
      '::ffff:10.0.0.1',
      '::ffff:c0a8:101',
      '::10.0.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::8.8.8.8', // local-use NAT64 is never global
      '64:ff9b:1::10.0.0.1',
      '2002:c0a8:101::1',
      '2001:0:a00:1::f7f7:f7f7', // Teredo server 10.0.0.1
    ],
    'link-local': ['169.254.0.1', '169.254.255.255', 'fe80::1', 'fe80::1%eth0', 'febf::1', '::ffff:169.254.1.1'],
    cgnat: ['100.64.0.1', '100.127.255.255', '::ffff:100.64.0.1'],
    multicast: ['224.0.0.1', '239.255.255.255', 'ff02::1', 'ff0e::1', '::ffff:224.0.0.1'],
    broadcast: ['255.255.255.255', '::ffff:255.255.255.255'],
    unspecified: ['0.0.0.0', '0', '0.1.2.3', '::', '::ffff:0.0.0.0', '64:ff9b::0.0.0.0'],
    documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '3fff::1', '::ffff:192.0.2.1'],
    benchmark: ['198.18.0.1', '198.19.255.255', '2001:2::1'],
    reserved: [
      '192.0.0.1',
      '192.0.0.255',
      '192.88.99.1',
      '240.0.0.1',
      '254.255.255.255',
      '100::1', // discard-only
      '100::',
      '2001:10::1', // ORCHID
      '2001:20::1',
      '5f00::1',
      '4000::1', // outside 2000::/3
      '::8.8.8.8', // IPv4-compatible is not routable
      '::ffff:0:8.8.8.8',
    ],
    metadata: [
      '169.254.169.254',
      '169.254.170.2',
      '100.100.100.200',
      'fd00:ec2::254',
      '[fd00:ec2:0:0:0:0:0:254]',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '2002:a9fe:a9fe::1',
      '0xa9fea9fe',
    ],
    invalid: ['example.com', 'localhost', '', '1.2.3.4.5', ':::'],
  };

  for (const [expected, addresses] of Object.entries(cases)) {
    it.each(addresses)(`%s is ${expected}`, (address) => {
      expect(classifyAddress(address)).toBe(expected);
    });
  }
});
