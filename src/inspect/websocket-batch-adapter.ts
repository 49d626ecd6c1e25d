/**
 * The WebSocket end of {@link createWebSocketInspector}: it takes each batch of
 * inspection events from `inspectionBatches` and writes it as one frame to a
 * loopchart relay, one event per frame to any other server.
 */
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket } from 'ws';
import type { InspectionAdapter } from './inspection-batch.js';
import { batchFrame, eventText, framesReadAt } from './inspection-frame.js';
import { isLoopbackUrl } from '../net/is-loopback.js';

/**
 * A client masks every frame (RFC 6455) so that bytes it does not choose cannot pose as a request to a
 * proxy between it and the server. To this machine's loopback address there is no such proxy: the mask
 * is all zeros, which `ws` on both ends takes as "no masking", sparing an XOR over every byte twice.
 */
const unmaskedOnLoopback = { generateMask: (mask: Buffer) => mask.fill(0) };

/** Options of {@link WebSocketBatchAdapter}. */
export interface WebSocketBatchAdapterOptions {
  /** The server's WebSocket URL, such as a relay's `webSocketUrl`. */
  url: string;
  /** Events held while the socket is not open; the oldest are dropped beyond this. Default 200, as `@statelyai/inspect`. */
  maxDeferredEvents?: number;
  /** How long after a failed or lost connection it tries again. Default 5,000 ms, as `@statelyai/inspect`. */
  reconnectDelayMs?: number;
  /**
   * The most it holds unsent on an open connection to a server that reads slower than the run
   * sends (a hung receiver): past it the connection is dropped, with what it held, and made again
   * after `reconnectDelayMs`, rather than the run's process holding every event. Default 64 MiB.
   */
  maxBufferedBytes?: number;
}

/** What the adapter holds unsent on an open connection by default: 64 MiB. */
export const DEFAULT_ADAPTER_MAX_BUFFERED_BYTES = 64 * 2 ** 20;

/**
 * An inspection adapter over one WebSocket. Frames to a loopback address
 * (`127.0.0.1`, `localhost`, `::1`: a relay on this machine) are not masked.
 * While the socket is not open the
 * newest events wait (see `maxDeferredEvents`) and go out once it opens; a
 * connection that fails or is lost is tried again until `stop()`, on a timer
 * that never keeps the process alive; so is one dropped because the server
 * left more than `maxBufferedBytes` unread.
 *
 * @example
 * ```ts
 * const adapter = new WebSocketBatchAdapter({ url: relay.webSocketUrl });
 * adapter.start();
 * const agent = createAgent({ model, inspect: inspectionBatches(adapter) });
 * ```
 */
export class WebSocketBatchAdapter implements InspectionAdapter {
  private socket: WebSocket | undefined;
  private deferred: string[] = [];
  private running = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly batches: boolean;
  private readonly references: boolean;
  private readonly loopback: boolean;
  private readonly maxDeferredEvents: number;
  private readonly reconnectDelayMs: number;
  private readonly maxBufferedBytes: number;

  constructor(private readonly options: WebSocketBatchAdapterOptions) {
    const frames = framesReadAt(options.url);
    this.batches = frames !== 'single';
    this.references = frames === 'references';
    this.loopback = isLoopbackUrl(options.url);
    this.maxDeferredEvents = options.maxDeferredEvents ?? 200;
    this.reconnectDelayMs = options.reconnectDelayMs ?? 5_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_ADAPTER_MAX_BUFFERED_BYTES;
  }

  /** Opens the connection (again). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  /** Closes the connection and stops trying to reconnect. Events sent afterwards wait for the next `start()`. */
  stop(): void {
    this.running = false;
    clearTimeout(this.retry);
    this.retry = undefined;
    const socket = this.socket;
    this.socket = undefined;
    socket?.close();
  }

  /**
   * The relay resolves back-references, and a batch given now goes out at once as one frame: only
   * then may its events refer back (events that wait are sent together, and the oldest dropped).
   */
  get readsBackReferences(): boolean {
    return this.references && this.socket?.readyState === WebSocket.OPEN;
  }

  send(event: StatelyInspectionEvent): void {
    this.sendBatch([eventText(event)]);
  }

  /** `referring` batches come only while {@link readsBackReferences} is true: the socket is open, and they go out at once, whole. */
  sendBatch(eventTexts: string[], referring = false): void {
    if (eventTexts.length === 0) return;
    if (this.socket?.readyState === WebSocket.OPEN) {
      this.write(eventTexts, referring);
      return;
    }
    for (const text of eventTexts) this.deferred.push(text);
    if (this.deferred.length > this.maxDeferredEvents) this.deferred.splice(0, this.deferred.length - this.maxDeferredEvents);
  }

  private write(eventTexts: string[], referring = false): void {
    const socket = this.socket!;
    if (this.batches) socket.send(eventTexts.length === 1 ? eventTexts[0]! : batchFrame(eventTexts, referring));
    else for (const text of eventTexts) socket.send(text);
    // A server that does not read: the connection goes, with what it held; `close` connects again.
    if (socket.bufferedAmount > this.maxBufferedBytes) socket.terminate();
  }

  private connect(): void {
    const socket = new WebSocket(this.options.url, this.loopback ? unmaskedOnLoopback : {});
    this.socket = socket;
    socket.on('open', () => {
      const waiting = this.deferred;
      this.deferred = [];
      if (waiting.length > 0) this.write(waiting);
    });
    // Every failure ends in `close`; the error itself needs a listener only so that it is not thrown.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket !== socket || !this.running) return;
      this.socket = undefined;
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (this.running) this.connect();
      }, this.reconnectDelayMs);
      this.retry.unref();
    });
  }
}
