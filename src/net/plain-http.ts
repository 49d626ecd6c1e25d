import { isLoopbackHost } from './is-loopback.js';

/**
 * True when what goes to `url` crosses the network unencrypted: plain `http`
 * to a host that is not this machine (loopback stays allowed: local servers).
 * False for https, for loopback, and for a string that is not a URL.
 *
 * @example
 * sendsInTheClear('http://192.0.2.10/v1')   // true
 * sendsInTheClear('http://127.0.0.1:11434') // false
 * sendsInTheClear('https://api.openai.com') // false
 */
export function sendsInTheClear(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname);
}
