import { describe, expect, it } from 'vitest';
import { isLoopbackHost, isLoopbackUrl } from '../src/net/is-loopback.js';

describe('isLoopbackUrl', () => {
  it('knows this machine by its loopback names and addresses', () => {
    for (const url of ['ws://127.0.0.1:8080/ws', 'http://localhost:3000', 'ws://[::1]:9000', 'http://127.1.2.3/']) expect(isLoopbackUrl(url), url).toBe(true);
  });

  it('takes any other host, and a string that is not a URL, as not loopback', () => {
    for (const url of ['ws://example.com', 'http://10.0.0.1', 'ws://0.0.0.0:8080', 'http://127.0.0.1.example.com', 'http://localhost.example.com', 'not a url', '']) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it('reads a hostname as URL.hostname gives it, IPv6 in brackets', () => {
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::2]')).toBe(false);
  });
});
