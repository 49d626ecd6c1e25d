/**
 * True when the URL's host is this machine by its loopback address
 * (`localhost`, `127.x.x.x`, `::1`): nothing but this machine sees what goes
 * there. False for any other host, and for a string that is not a URL.
 *
 * @example
 * ```ts
 * isLoopbackUrl('ws://127.0.0.1:8080/ws'); // true
 * isLoopbackUrl('http://example.com');     // false
 * ```
 */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
