import { describe, expect, it } from 'vitest';
import { addressSubject } from './limits.ts';

describe('addressSubject', () => {
  it('counts IPv4 as is, IPv4-mapped IPv6 as IPv4 and IPv6 by its /64', () => {
    expect(addressSubject('192.0.2.1')).toBe('192.0.2.1');
    expect(addressSubject('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressSubject('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressSubject('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });

  it('counts anything that is not an address by a short digest', () => {
    const subject = addressSubject('visitor-'.repeat(10_000));
    expect(subject).toMatch(/^sha256:[\w-]{22}$/);
    expect(addressSubject('visitor-123')).not.toBe(addressSubject('visitor-124'));
  });
});
