import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressResolver, plainAddress, trustedPeerResolver } from './client-address.ts';

function request(peer: string, forwardedFor?: string): IncomingMessage {
  const socket = { remoteAddress: peer };
  return { socket, connection: socket, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}

describe('the client address', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    const address = clientAddressResolver(null);
    expect(address(request('198.51.100.4', '203.0.113.9'))).toBe('198.51.100.4');
    expect(address(request('::ffff:198.51.100.4'))).toBe('198.51.100.4');
  });

  it('behind one trusted hop is the address the proxy saw (the rightmost entry), never what the client wrote left of it', () => {
    const address = clientAddressResolver({ hops: 1 });
    expect(address(request('10.0.0.2', '203.0.113.9'))).toBe('203.0.113.9');
    expect(address(request('10.0.0.2', '198.51.100.1, 192.0.2.77, 203.0.113.9'))).toBe('203.0.113.9');
    expect(address(request('10.0.0.2'))).toBe('10.0.0.2');
  });

  it('behind two hops skips both proxies', () => {
    const address = clientAddressResolver({ hops: 2 });
    expect(address(request('10.0.0.2', '1.1.1.1, 203.0.113.9, 10.0.0.3'))).toBe('203.0.113.9');
  });

  it('with trusted ranges walks left until the first address outside them', () => {
    const address = clientAddressResolver({ ranges: ['10.0.0.0/8', 'loopback'] });
    expect(address(request('127.0.0.1', '1.1.1.1, 203.0.113.9, 10.1.2.3'))).toBe('203.0.113.9');
    // A peer outside the ranges is the client itself: its header is not believed.
    expect(address(request('198.51.100.4', '203.0.113.9'))).toBe('198.51.100.4');
    expect(address(request('::ffff:10.0.0.2', '2001:db8::1'))).toBe('2001:db8::1');
  });

  it('accepts only IP addresses: text where an address belongs stops at the proxy that handed it on', () => {
    const address = clientAddressResolver({ hops: 1 });
    expect(address(request('10.0.0.2', 'visitor-123'))).toBe('10.0.0.2');
    expect(address(request('10.0.0.2', 'x'.repeat(50_000)))).toBe('10.0.0.2');
    expect(address(request('10.0.0.2', '203.0.113.9:4711'))).toBe('10.0.0.2');
    expect(address(request('10.0.0.2', '::FFFF:203.0.113.9'))).toBe('203.0.113.9');
    const two = clientAddressResolver({ hops: 2 });
    expect(two(request('10.0.0.2', 'visitor-123, 203.0.113.9'))).toBe('203.0.113.9');
  });

  it('normalises addresses', () => {
    expect(plainAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(plainAddress(' 2001:DB8::1 ')).toBe('2001:db8::1');
    expect(plainAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(plainAddress('unknown')).toBeUndefined();
    expect(plainAddress(undefined)).toBeUndefined();
  });

  it("believes a proxy's forwarded scheme and host only from a trusted peer", () => {
    expect(trustedPeerResolver(null)(request('10.0.0.2'))).toBe(false);
    expect(trustedPeerResolver({ hops: 1 })(request('198.51.100.4'))).toBe(true);
    const ranges = trustedPeerResolver({ ranges: ['10.0.0.0/8'] });
    expect(ranges(request('::ffff:10.0.0.2'))).toBe(true);
    expect(ranges(request('198.51.100.4'))).toBe(false);
  });
});
