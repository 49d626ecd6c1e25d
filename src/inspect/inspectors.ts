import {
  createBrowserInspector as statelyBrowserInspector,
  createSkyInspector as statelySkyInspector,
  type StatelyInspectionEvent,
} from '@statelyai/inspect';
import type { AnyEventObject, InspectionEvent, MachineContext, Observer } from 'xstate';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { inspectionBatches } from './inspection-batch.js';
import { isDeferredEventLimit, WebSocketBatchAdapter, type WebSocketBatchAdapterOptions } from './websocket-batch-adapter.js';
import { redactSecrets, sanitizeContext, sanitizeEvent } from './sanitize.js';
import { secretList, type SecretList } from '../secrets/secret-list.js';
import { droppedEventsReporter } from './dropped-events.js';

/** What the helpers return: pass `inspect` as the agent's `inspect` option; `stop()` closes the connection. */
export interface AgentInspector {
  inspect: Observer<InspectionEvent>;
  start(): void;
  stop(): void;
}

/** Options shared by the inspector helpers. */
export interface SafeInspectorOptions {
  /**
   * Only the events it returns true for are sent; it sees them converted, with histories summarised.
   * An event it throws on is dropped, and told (the WebSocket inspector's `onDropped`, else a process
   * warning, `LOOPCHART_INSPECTION_EVENTS_DROPPED`): the throw never reaches the event loop.
   */
  filter?: (event: StatelyInspectionEvent) => boolean;
  /**
   * Values that must never leave the process (API keys, tokens): replaced by `[redacted]` in every
   * inspection event. An `undefined` or empty entry (`process.env.OPENAI_API_KEY` when it is not set)
   * is left out; anything else but a string throws a `SecretsOptionError`.
   */
  secrets?: SecretList;
}

/**
 * The options every helper takes, for the helpers' strict schemas: `secrets` is checked by
 * `secretList`, whose `SecretsOptionError` names it.
 */
const safeInspectorFields = {
  filter: functionOption<(event: StatelyInspectionEvent) => boolean>().optional(),
  secrets: z.unknown().optional(),
};

/**
 * The inspector options loopchart needs: histories summarised in snapshots
 * and events (a snapshot costs the same at any history length), and secrets
 * redacted. Per-chunk events never reach the inspector: text deltas do not go
 * through the machine.
 */
export function agentInspectorOptions(options: Pick<SafeInspectorOptions, 'secrets'> = {}): {
  sanitizeContext: (context: MachineContext) => MachineContext;
  sanitizeEvent: (event: AnyEventObject) => AnyEventObject;
  serialize?: (event: StatelyInspectionEvent) => StatelyInspectionEvent;
} {
  parseOptions('agentInspectorOptions', z.strictObject({ secrets: safeInspectorFields.secrets }), options);
  const secrets = secretList(options.secrets, 'agentInspectorOptions options.secrets');
  return {
    sanitizeContext: (context) => sanitizeContext(context, secrets),
    sanitizeEvent: (event) => sanitizeEvent(event, secrets),
    // A JSON round trip per event, only where there is something to redact: the inspector serialises the event itself.
    ...(secrets.length > 0 ? { serialize: (event: StatelyInspectionEvent) => redactSecrets(event, secrets) } : {}),
  };
}

/** Options of {@link createWebSocketInspector}. */
export interface WebSocketInspectorOptions extends SafeInspectorOptions, Omit<WebSocketBatchAdapterOptions, 'reconnectDelayMs'> {
  /** Connect at once (default); otherwise on `start()`. */
  autoStart?: boolean;
}

/**
 * `createWebSocketInspector`'s options, checked whole: a misspelt one is refused, not ignored. The
 * adapter's limits are checked by the adapter, whose messages name them.
 */
const webSocketInspectorOptionsSchema = z.strictObject({
  ...safeInspectorFields,
  url: z.string(),
  maxDeferredEvents: z.unknown().optional(),
  maxBufferedBytes: z.unknown().optional(),
  onDropped: functionOption<NonNullable<WebSocketBatchAdapterOptions['onDropped']>>().optional(),
  autoStart: z.boolean().optional(),
});

/**
 * A Stately inspector over a WebSocket, for Node: connect it to the relay of
 * {@link startInspectorRelay} (or `@statelyai/inspect/server`) and pass
 * `inspector.inspect` as the agent's `inspect` option. To loopchart's relay it
 * sends each batch of events (what one turn of the event loop produced) as one
 * frame; to any other server, one event per frame.
 *
 * @example
 * ```ts
 * const relay = await startInspectorRelay({ port: 8080 });
 * const inspector = createWebSocketInspector({ url: relay.webSocketUrl, secrets: [process.env.OPENAI_API_KEY] });
 * const agent = createAgent({ model, tools, inspect: inspector.inspect });
 * console.log(`open ${relay.pageUrl}`);
 * ```
 */
export function createWebSocketInspector(options: WebSocketInspectorOptions): AgentInspector {
  parseOptions('createWebSocketInspector', webSocketInspectorOptionsSchema, options);
  const { secrets: given, filter, autoStart = true, ...adapterOptions } = options;
  const secrets = secretList(given, 'createWebSocketInspector options.secrets');
  // One reporter for both ends: without the app's onDropped, one warning for the inspector's first drop, wherever it was.
  const onDropped = droppedEventsReporter(options.onDropped, 'createWebSocketInspector');
  const adapter = new WebSocketBatchAdapter({ ...adapterOptions, onDropped });
  if (autoStart) adapter.start();
  return { start: () => adapter.start(), stop: () => adapter.stop(), inspect: inspectionBatches(adapter, { secrets, onDropped, ...(filter ? { filter } : {}) }) };
}

/**
 * The Stately inspector with its `inspect` observer replaced by {@link inspectionBatches}: the
 * same events reach its adapter, converted and serialised once, in batches.
 */
function batched(inspector: AgentInspector & { adapter?: Parameters<typeof inspectionBatches>[0] }, options: SafeInspectorOptions): AgentInspector {
  if (inspector.adapter === undefined) return inspector;
  return { start: () => inspector.start(), stop: () => inspector.stop(), inspect: inspectionBatches(inspector.adapter, options) };
}

/**
 * What `@statelyai/inspect` would do per event and {@link inspectionBatches} does instead, so not
 * options of the helpers: `filter` is loopchart's own (see {@link SafeInspectorOptions}).
 */
type ReplacedStatelyOptions = 'filter' | 'serialize' | 'sanitizeContext' | 'sanitizeEvent' | 'serializationDepthLimit';

/** The Stately options the browser and Sky helpers pass on; the replaced ones (and any other) are refused, since nothing would use them. */
const statelyFields = {
  autoStart: z.boolean().optional(),
  // `@statelyai/inspect` drops the oldest waiting event while more than this wait: text or NaN would never drop one, and the wait would grow without end.
  maxDeferredEvents: z.custom<number>(isDeferredEventLimit, { message: 'expected a whole number of events, 0 or more' }).optional(),
};

/** `createBrowserInspector`'s options: `@statelyai/inspect`'s, less those loopchart replaces, and its own. */
const browserInspectorOptionsSchema = z.strictObject({
  ...safeInspectorFields,
  ...statelyFields,
  url: z.string().optional(),
  // What `@statelyai/inspect` posts the events to, or opens the inspector in: a Window, an iframe element (or null).
  window: z.custom<Window>((value) => typeof (value as { postMessage?: unknown } | null)?.postMessage === 'function', { message: 'expected a Window (an object with postMessage)' }).optional(),
  iframe: z.custom<HTMLIFrameElement | null>((value) => value === null || (typeof value === 'object' && 'contentWindow' in value), { message: 'expected an iframe element or null' }).optional(),
  send: functionOption<(event: StatelyInspectionEvent) => void>().optional(),
});

/** `createSkyInspector`'s options: `@statelyai/inspect`'s, less those loopchart replaces, and its own. */
const skyInspectorOptionsSchema = z.strictObject({
  ...safeInspectorFields,
  ...statelyFields,
  apiKey: z.string().optional(),
  onerror: functionOption<(error: Error) => void>().optional(),
});

/**
 * A Stately inspector in a browser window, for agents that run in a browser app.
 *
 * @example
 * ```ts
 * const inspector = createBrowserInspector();
 * const agent = createAgent({ model, tools, inspect: inspector.inspect });
 * ```
 */
export function createBrowserInspector(options: Omit<NonNullable<Parameters<typeof statelyBrowserInspector>[0]>, ReplacedStatelyOptions> & SafeInspectorOptions = {}): AgentInspector {
  parseOptions('createBrowserInspector', browserInspectorOptionsSchema, options);
  const { secrets, filter, ...rest } = options;
  const checked = secretList(secrets, 'createBrowserInspector options.secrets');
  return batched(statelyBrowserInspector(rest), { secrets: checked, ...(filter ? { filter } : {}) });
}

/**
 * The hosted Stately Sky inspector: it prints a link to a live session. Events
 * leave the machine for stately.ai — pass your secrets so that they are redacted.
 *
 * @example
 * ```ts
 * const inspector = createSkyInspector({ secrets: [apiKey] });
 * const agent = createAgent({ model, tools, inspect: inspector.inspect });
 * ```
 */
export function createSkyInspector(options: Omit<NonNullable<Parameters<typeof statelySkyInspector>[0]>, ReplacedStatelyOptions> & SafeInspectorOptions = {}): AgentInspector {
  parseOptions('createSkyInspector', skyInspectorOptionsSchema, options);
  const { secrets, filter, ...rest } = options;
  const checked = secretList(secrets, 'createSkyInspector options.secrets');
  return batched(statelySkyInspector(rest), { secrets: checked, ...(filter ? { filter } : {}) });
}
