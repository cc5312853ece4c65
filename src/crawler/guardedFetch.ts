/**
 * `fetch` for crawls the server runs on behalf of its tenants: it connects only to public
 * addresses, so a source cannot make Lore read its own network (127.0.0.1, 10.0.0.0/8, the
 * cloud metadata address 169.254.169.254, IPv6 unique-local …). The check is made on the
 * addresses a name resolves to, at connect time (no window for DNS rebinding), and on each
 * redirect's target, which is followed here one hop at a time.
 */
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';

const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Whether an address is public (global unicast). An IPv6 address that embeds an IPv4 one is
 * judged by it: IPv4-mapped (`::ffff:127.0.0.1`), IPv4-compatible (`::7f00:1`, which
 * ipaddr.js calls unicast), IPv4-translated (`::ffff:0:7f00:1`), NAT64's well-known prefix
 * (`64:ff9b::7f00:1`) and 6to4 (`2002:7f00:1::`), so an IPv6-only network's NAT64 still
 * reaches public IPv4 sites and none of these forms reaches a private one. Teredo and every
 * other special range are not public.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const embedded = embeddedIPv4(ip as ipaddr.IPv6);
  return (embedded ?? ip).range() === 'unicast';
}

/** The IPv4 address an IPv6 one carries (see isPublicAddress), or null. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = ip.toByteArray();
  const range = ip.range();
  const compatible = range === 'unicast' && bytes.slice(0, 12).every((b) => b === 0);
  if (compatible || range === 'rfc6052' || range === 'rfc6145') return new ipaddr.IPv4(bytes.slice(12));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

export class PrivateAddressError extends Error {}

/** A URL's host as an address or name (IPv6 without its brackets). */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

/** How long `privateTarget` waits for a name to resolve before letting the crawl find out. */
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * The private address a crawl of `url` would reach — its host is a private address, or a name
 * that resolves to private addresses only — or null (public, or a name that does not resolve
 * within RESOLVE_TIMEOUT_MS: the run reports what it finds then). For refusing a crawler before
 * it runs; each fetch is still checked at connect time (a name may change what it resolves to).
 */
export async function privateTarget(url: string): Promise<string | null> {
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return isPublicAddress(host) ? null : host;
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS);
    lookup(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found);
    });
  });
  return addresses.length > 0 && addresses.every((a) => !isPublicAddress(a.address)) ? addresses[0]!.address : null;
}

/** The guarded fetch; `allowPrivate` (LORE_CRAWL_PRIVATE_NETWORKS) returns the plain one. */
export function createCrawlFetch(allowPrivate: boolean): typeof fetch {
  if (allowPrivate) return fetch;
  const agent = new Agent({
    connect: {
      lookup(hostname: string, options: LookupOptions, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) {
        lookup(hostname, { ...options, all: true }, (error, addresses) => {
          if (error) return callback(error, '');
          const allowed = addresses.filter((a) => isPublicAddress(a.address));
          if (allowed.length === 0) return callback(new PrivateAddressError(`${hostname} is a private address`), '');
          if (options.all) callback(null, allowed);
          else callback(null, allowed[0]!.address, allowed[0]!.family);
        });
      },
    },
  });
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    let url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const host = hostOf(url);
      if (ipaddr.isValid(host) && !isPublicAddress(host)) throw new TypeError('fetch failed', { cause: new PrivateAddressError(`${host} is a private address`) });
      const response = (await undiciFetch(url, { ...(init as object), redirect: 'manual', dispatcher: agent })) as unknown as Response;
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) return response;
      await response.body?.cancel();
      url = new URL(location, url).toString();
    }
    throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
  }) as typeof fetch;
}
