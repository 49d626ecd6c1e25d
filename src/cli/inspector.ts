import { createWebSocketInspector, startInspectorRelay } from '../inspect/index.js';
import type { AgentOptions } from '../options.js';
import { UsageError } from './usage-error.js';

/** How long the inspector gets to send its last events before the relay closes. */
const FLUSH_MS = 250;

/** The Stately inspector of one `loopchart run --inspect`. */
export interface CliInspector {
  /** The page to open in a browser. */
  pageUrl: string;
  /** The agent's `inspect` option. */
  inspect: NonNullable<AgentOptions['inspect']>;
  /** Resolves once the inspector page is open in a browser; rejects when `signal` aborts. */
  viewerConnected(signal?: AbortSignal): Promise<void>;
  /** Lets the last events reach the page, then stops the inspector and the relay. */
  close(): Promise<void>;
}

/**
 * Starts the inspector relay on 127.0.0.1 and a WebSocket inspector connected
 * to it. The agent it is given to shares its `secrets` with it: they are redacted from every event.
 *
 * @example
 * const inspector = await startCliInspector({ port: 0 });
 * const agent = createAgent({ model, inspect: inspector.inspect, secrets: [apiKey] });
 * // … run …
 * await inspector.close();
 * @throws UsageError when the port is taken.
 */
export async function startCliInspector({
  port,
  onInspectorUnavailable,
  onClientClosed,
  onDropped,
}: {
  port: number;
  /** Called when the page says the Stately inspector it embeds did not load (offline). */
  onInspectorUnavailable?: (reason: string) => void;
  /** Called when the relay closed a client for a bad frame or a failed connection; the run goes on. */
  onClientClosed?: (reason: string) => void;
  /** Called with how many events the run's inspector dropped, and why (`createWebSocketInspector`'s `onDropped`); the run goes on. */
  onDropped?: (events: number, reason: string) => void;
}): Promise<CliInspector> {
  const relay = await startInspectorRelay({ port }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new UsageError(`--inspect: cannot listen on 127.0.0.1:${port} (${code}); pick another port, or --inspect for any free one`);
    throw error;
  });
  if (onInspectorUnavailable) relay.onInspectorUnavailable(onInspectorUnavailable);
  if (onClientClosed) relay.onClientClosed(onClientClosed);
  const inspector = createWebSocketInspector({ url: relay.webSocketUrl, ...(onDropped ? { onDropped } : {}) });
  return {
    pageUrl: relay.pageUrl,
    inspect: inspector.inspect,
    viewerConnected: (signal) => relay.viewerConnected(signal),
    async close() {
      await new Promise((resolve) => setTimeout(resolve, FLUSH_MS));
      inspector.stop();
      await relay.close();
    },
  };
}
