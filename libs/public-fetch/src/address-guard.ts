import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a server may fetch from on a caller's behalf: the public internet only, checked on every address a
 * name resolves to, in the connection's own DNS lookup (so a name cannot resolve to a public address for a check and
 * a private one for the connection). Used by the auth server's client metadata document fetches and by query-api's
 * media fetches.
 */

export type AddressVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Blocks ipaddr.js calls `unicast` that are not the public internet: benchmarking (198.18.0.0/15, 2001:2::/48), IETF
 * protocol assignments (192.0.0.0/24), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) and 6to4
 * (2002::/16), which embed an IPv4 address that may be private, deprecated site-local (fec0::/10), discard-only
 * (100::/64) and ORCHID (2001:10::/28, 2001:20::/28); and what ipaddr.js 1.9.1 predates: IPv4-compatible IPv6
 * (::/96, deprecated, embeds an IPv4 address), IPv6 documentation (3fff::/20, RFC 9637) and SRv6 SIDs (5f00::/16,
 * RFC 9602). ::1, in ::/96, stays loopback.
 */
const NOT_PUBLIC = [
  '198.18.0.0/15',
  '192.0.0.0/24',
  '2001:2::/48',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2002::/16',
  'fec0::/10',
  '100::/64',
  '2001:10::/28',
  '2001:20::/28',
  '::/96',
  '3fff::/20',
  '5f00::/16',
].map((cidr) => ipaddr.parseCIDR(cidr));

/** Globally routable unicast only: private, loopback, link-local, CGNAT, multicast, reserved ... are refused. */
export function checkAddress(address: string, allowLoopback: boolean): AddressVerdict {
  if (!ipaddr.isValid(address)) return { ok: false, reason: `${address} is not an IP address` };
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  const blocked = range !== 'loopback' && NOT_PUBLIC.find(([network, bits]) =>
    parsed.kind() === 'ipv4'
      ? network.kind() === 'ipv4' && (parsed as ipaddr.IPv4).match(network as ipaddr.IPv4, bits)
      : network.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(network as ipaddr.IPv6, bits),
  );
  if (blocked) return { ok: false, reason: `${address} is in ${blocked[0].toString()}/${blocked[1]}, not the public internet` };
  if (range === 'unicast') return { ok: true };
  if (allowLoopback && range === 'loopback') return { ok: true };
  return { ok: false, reason: `${address} is a ${range} address` };
}

/** A DNS lookup for outgoing sockets that fails unless every address the name resolves to may be reached. */
export function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.map((entry) => checkAddress(entry.address, allowLoopback)).find((verdict) => !verdict.ok);
      if (refused && !refused.ok) {
        return callback(Object.assign(new Error(`${hostname} resolves to a refused address: ${refused.reason}`), { code: 'EREFUSEDADDRESS' }), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}
