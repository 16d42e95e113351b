import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { TrustedProxies } from '@kb/config';
import proxyaddr from 'proxy-addr';

/** What a request without a usable socket address is counted as (a socket closed before we looked). */
const UNKNOWN_ADDRESS = '0.0.0.0';

/** A valid IP address in its plain form (IPv4-mapped IPv6 as IPv4, no zone), or undefined. */
export function plainAddress(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const address = value.trim().split('%')[0]!;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  const plain = mapped ? mapped[1]! : address;
  return isIP(plain) === 0 ? undefined : plain.toLowerCase();
}

/**
 * How the client address of a request is found: the socket's peer, or behind trusted proxies the
 * address the nearest untrusted hop had, as the proxies recorded it in X-Forwarded-For (each
 * appends the address it saw, so the client controls only the entries left of the proxies').
 */
/**
 * Whether a request came through a trusted proxy, so that its X-Forwarded-Proto and
 * X-Forwarded-Host are the proxy's word: with a hop count, any peer is the proxy; with ranges, only a
 * peer within them (anyone else reaching the server directly writes those headers themselves).
 */
export function trustedPeerResolver(trusted: TrustedProxies): (req: IncomingMessage) => boolean {
  if (trusted === null) return () => false;
  if ('hops' in trusted) return () => true;
  const trust = proxyaddr.compile(trusted.ranges);
  return (req) => {
    const peer = plainAddress(req.socket.remoteAddress);
    return peer !== undefined && trust(peer, 0);
  };
}

export function clientAddressResolver(trusted: TrustedProxies): (req: IncomingMessage) => string {
  if (trusted === null) return (req) => plainAddress(req.socket.remoteAddress) ?? UNKNOWN_ADDRESS;
  const trust = 'hops' in trusted ? (_address: string, hop: number) => hop < trusted.hops : proxyaddr.compile(trusted.ranges);
  return (req) => {
    // From the socket's peer leftwards, up to and including the first hop not trusted.
    const hops = proxyaddr.all(req, trust);
    // An entry that is not an address (a client's own text where it was not overwritten) stops the
    // walk: the last proxy that handed it on is the address.
    let address: string | undefined;
    for (const hop of hops) {
      const plain = plainAddress(hop);
      if (plain === undefined) break;
      address = plain;
    }
    return address ?? UNKNOWN_ADDRESS;
  };
}
