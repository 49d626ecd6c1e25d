import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` listening on 127.0.0.1 (never another interface) and resolves with the port it got;
 * `port` 0 or undefined takes a free one. A port already in use rejects instead of throwing later.
 *
 * @example
 * const port = await listenOnLoopback(createServer(handler), 0);
 * console.log(`http://127.0.0.1:${port}`);
 */
export async function listenOnLoopback(server: Server, port: number | undefined): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
