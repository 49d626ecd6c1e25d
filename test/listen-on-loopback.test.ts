import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../src/net/listen-on-loopback.js';

describe('listenOnLoopback', () => {
  it('listens on 127.0.0.1 on a free port, and rejects a port already taken', async () => {
    const first = createServer();
    const second = createServer();
    try {
      const port = await listenOnLoopback(first, undefined);
      expect(first.address()).toMatchObject({ address: '127.0.0.1', port } satisfies Partial<AddressInfo>);
      await expect(listenOnLoopback(second, port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((resolve) => first.close(resolve));
    }
  });
});
