/**
 * True when a URL's hostname (`URL.hostname`: IPv6 in brackets) names this
 * machine by its loopback address: `localhost`, `127.x.x.x`, `::1`.
 *
 * @example
 * ```ts
 * isLoopbackHost(new URL('ws://[::1]:8080').hostname); // true
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * True when the URL's host is this machine by its loopback address: nothing
 * but this machine sees what goes there. False for any other host, and for a
 * string that is not a URL.
 *
 * @example
 * ```ts
 * isLoopbackUrl('ws://127.0.0.1:8080/ws'); // true
 * isLoopbackUrl('http://example.com');     // false
 * ```
 */
export function isLoopbackUrl(url: string): boolean {
  return URL.canParse(url) && isLoopbackHost(new URL(url).hostname);
}
