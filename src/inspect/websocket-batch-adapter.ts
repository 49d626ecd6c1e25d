/**
 * The WebSocket end of {@link createWebSocketInspector}: it takes each batch of
 * inspection events from `inspectionBatches` and writes it as one frame to a
 * loopchart relay, one event per frame to any other server.
 */
import { MAX_TIMER_MS } from '../core/max-timer-ms.js';
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket } from 'ws';
import type { InspectionAdapter } from './inspection-batch.js';
import { batchFrameBytes, eventText, framesReadAt } from './inspection-frame.js';
import { isLoopbackUrl } from '../net/is-loopback.js';
import { droppedEventsReporter, type OnDropped } from './dropped-events.js';

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
  /**
   * Events held while the socket is not open; the oldest are dropped beyond this. A whole number, 0 or
   * more (`Infinity`: no limit); anything else throws a `RangeError`. Default 200, as `@statelyai/inspect`.
   */
  maxDeferredEvents?: number;
  /** How long after a failed or lost connection it tries again: 0 to 2^31-1 ms (anything else throws a `RangeError`). Default 5,000 ms, as `@statelyai/inspect`. */
  reconnectDelayMs?: number;
  /**
   * The most it holds unsent on an open connection to a server that reads slower than the run
   * sends (a hung receiver): past it the connection is dropped, with what it held, and made again
   * after `reconnectDelayMs`, rather than the run's process holding every event. A positive number
   * (`Infinity`: no limit); anything else throws a `RangeError`. Default 64 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * Told of events that never reach the server: how many, and why (more than `maxDeferredEvents`
   * waited while it was not connected, told once it connects or on `stop()`; a connection dropped
   * past `maxBufferedBytes`, or closed, with events it had not sent; with `createWebSocketInspector`,
   * an event its `filter` threw on). The run goes on; the
   * inspector shows it without them. Without it, the first drop is a process warning
   * (`LoopchartWarning`, code `LOOPCHART_INSPECTION_EVENTS_DROPPED`) and later ones are not told.
   * A throw of `onDropped` is swallowed.
   */
  onDropped?: OnDropped;
}

export { INSPECTION_EVENTS_DROPPED_WARNING } from './dropped-events.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** One connection, and how many of the events written to it its socket has not yet handed to the system. */
interface Connection {
  socket: WebSocket;
  unsent: number;
  /** Set when it was dropped for holding more than `maxBufferedBytes`: what it held. */
  unreadBytes?: number;
}

/** What the adapter holds unsent on an open connection by default: 64 MiB. */
export const DEFAULT_ADAPTER_MAX_BUFFERED_BYTES = 64 * 2 ** 20;

/**
 * Whether `value` is a limit of waiting events an inspector can keep: a whole number, 0 or more,
 * or `Infinity`. Text or `NaN` compares as false with every count, so nothing would ever be dropped.
 *
 * @example
 * isDeferredEventLimit(200); // true
 * isDeferredEventLimit(Number.NaN); // false
 */
export function isDeferredEventLimit(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && (Number.isInteger(value) || value === Infinity);
}

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
  private connection: Connection | undefined;
  private deferred: string[] = [];
  /** Events dropped from `deferred` since the last report. */
  private droppedWhileWaiting = 0;
  private readonly dropped: OnDropped;
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
    // A limit that compares as false with everything (NaN, a string) would never drop a thing: the backlog and the unsent frames would grow without bound.
    const refuse = (name: string, value: unknown, expected: string) => new RangeError(`createWebSocketInspector: ${name} must be ${expected}, not ${String(value)}`);
    const { maxDeferredEvents, reconnectDelayMs, maxBufferedBytes } = this;
    if (!isDeferredEventLimit(maxDeferredEvents)) throw refuse('maxDeferredEvents', maxDeferredEvents, 'a whole number of events, 0 or more');
    if (typeof maxBufferedBytes !== 'number' || !(maxBufferedBytes > 0)) throw refuse('maxBufferedBytes', maxBufferedBytes, 'a positive number of bytes');
    // A timer given more than 2^31-1 ms fires at once: a server that is down would be retried without pause.
    if (typeof reconnectDelayMs !== 'number' || !(reconnectDelayMs >= 0 && reconnectDelayMs <= MAX_TIMER_MS)) throw refuse('reconnectDelayMs', reconnectDelayMs, `a number of ms, 0 to ${MAX_TIMER_MS}`);
    this.dropped = droppedEventsReporter(options.onDropped, 'createWebSocketInspector');
  }

  private get socket(): WebSocket | undefined {
    return this.connection?.socket;
  }

  /** Tells of the events dropped from the backlog since it was last told. */
  private reportDroppedWhileWaiting(): void {
    const events = this.droppedWhileWaiting;
    if (events === 0) return;
    this.droppedWhileWaiting = 0;
    this.dropped(events, `more than maxDeferredEvents (${this.maxDeferredEvents}) waited while it was not connected; the oldest were dropped`);
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
    this.connection = undefined;
    socket?.close();
    this.reportDroppedWhileWaiting();
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
    const over = this.deferred.length - this.maxDeferredEvents;
    if (over > 0) {
      this.deferred.splice(0, over);
      this.droppedWhileWaiting += over;
    }
  }

  private write(eventTexts: string[], referring = false): void {
    const connection = this.connection!;
    const { socket } = connection;
    // Counted until the socket hands the frame to the system: what a dropped connection had not sent.
    const frame = (data: string | Buffer, events: number) => {
      connection.unsent += events;
      // A batch is UTF-8 bytes already (`batchFrameBytes`): sent as the text frame it is.
      socket.send(data, { binary: false }, (error) => {
        if (!error) connection.unsent -= events;
      });
    };
    if (this.batches) frame(eventTexts.length === 1 ? eventTexts[0]! : batchFrameBytes(eventTexts, referring), eventTexts.length);
    else for (const text of eventTexts) frame(text, 1);
    // A server that does not read: the connection goes, with what it held; `close` connects again.
    if (socket.bufferedAmount > this.maxBufferedBytes && connection.unreadBytes === undefined) {
      connection.unreadBytes = socket.bufferedAmount;
      socket.terminate();
    }
  }

  private connect(): void {
    const socket = new WebSocket(this.options.url, this.loopback ? unmaskedOnLoopback : {});
    const connection: Connection = { socket, unsent: 0 };
    this.connection = connection;
    socket.on('open', () => {
      this.reportDroppedWhileWaiting();
      const waiting = this.deferred;
      this.deferred = [];
      if (waiting.length > 0) this.write(waiting);
    });
    // Every failure ends in `close`; the error itself needs a listener only so that it is not thrown.
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      if (connection.unsent > 0) {
        const { unreadBytes } = connection;
        this.dropped(
          connection.unsent,
          unreadBytes !== undefined
            ? `the server had not read ${mib(unreadBytes)} of them (more than maxBufferedBytes, ${mib(this.maxBufferedBytes)}): the connection was dropped with them and is made again`
            : `the connection closed (code ${code}) before they were sent`,
        );
        connection.unsent = 0;
      }
      if (this.socket !== socket || !this.running) return;
      this.connection = undefined;
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (this.running) this.connect();
      }, this.reconnectDelayMs);
      this.retry.unref();
    });
  }
}
