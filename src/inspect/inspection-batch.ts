import type { StatelyInspectionEvent } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';
import { ActorCreations, readSnapshot } from './actor-creations.js';
import { inspectedActor, machineOf, parentOf } from '../machine/xstate-internals.js';
import { redact } from '../secrets/redact.js';
import { secretList, type SecretList } from '../secrets/secret-list.js';
import { sharedSecrets } from '../secrets/shared-secrets.js';
import { withBackReferences } from './back-references.js';
import { eventText } from './inspection-frame.js';
import { droppedEventsReporter, type OnDropped } from './dropped-events.js';
import { redactSecrets, sanitizeContext, sanitizeEvent, type SanitizeMemo } from './sanitize.js';

/** Where a Stately inspector sends its events (its `adapter`). */
export interface InspectionAdapter {
  send(event: StatelyInspectionEvent): void;
  /**
   * A whole batch at once, as JSON texts with the secrets already redacted. An
   * adapter that has it gets each batch here, in one call, instead of `send`
   * per event.
   */
  sendBatch?(eventTexts: string[], referring?: boolean): void;
  /**
   * True when the texts of the batch it is about to be given may refer back to
   * earlier events of the same batch (`back-references.ts`): its receiver
   * resolves them, and the batch goes out whole, as one frame. The batch's
   * `referring` then says whether they do.
   */
  readonly readsBackReferences?: boolean;
}

type ShownInspectionEvent = Extract<InspectionEvent, { type: '@xstate.snapshot' | '@xstate.event' | '@xstate.actor' }>;

const isShown = (event: InspectionEvent): event is ShownInspectionEvent =>
  event.type === '@xstate.snapshot' || event.type === '@xstate.event' || event.type === '@xstate.actor';

/** The Stately inspection protocol version these events speak (`@statelyai/inspect` 0.7). */
export const PROTOCOL_VERSION = '0.7.2';

/** Each machine's definition as JSON, made once per machine, however many agents share it. */
const definitions = new WeakMap<object, string>();

/**
 * An `inspect` observer that hands a Stately inspector's adapter the events it
 * shows, converted and serialised once, in batches:
 *
 * - the XState events the Stately inspector drops anyway (`@xstate.action`,
 *   `@xstate.microstep`: half of a tool loop's events) are dropped at once, and
 *   so is a snapshot that is the same object as the one its actor was last
 *   shown with, by its creation or an earlier snapshot (an actor that took an
 *   event without changing: the event itself is shown);
 * - the rest are converted together on the next turn of the event loop (one
 *   `setImmediate` per batch, not one timer per event), after the run's
 *   synchronous work;
 * - a snapshot goes to the adapter as plain data with its histories summarised
 *   (the adapter's `JSON` text is the only serialisation; the Stately path
 *   serialises, parses and serialises again), a machine's definition is
 *   serialised once per machine, and secrets are redacted only when there are
 *   some;
 * - to an adapter whose receiver resolves back-references (loopchart's relay),
 *   an event writes what it repeats of an earlier event of its batch as a
 *   reference to it: a snapshot as a patch of the same actor's last one.
 *
 * @example
 * ```ts
 * const stately = createInspector(adapter);
 * const agent = createAgent({ model, inspect: inspectionBatches(stately.adapter, { secrets: [apiKey] }) });
 * ```
 */
export function inspectionBatches(
  adapter: InspectionAdapter,
  options: {
    secrets?: SecretList;
    filter?: (event: StatelyInspectionEvent) => boolean;
    /** Told of the events dropped because `filter` (or their conversion) threw; without it, the first drop is a process warning. */
    onDropped?: OnDropped;
  } = {},
): Observer<InspectionEvent> {
  const own = secretList(options.secrets, 'inspectionBatches options.secrets');
  const { filter } = options;
  const dropped = droppedEventsReporter(options.onDropped, 'inspectionBatches');
  let batch: ShownInspectionEvent[] = [];
  const memo: SanitizeMemo = new WeakMap();
  const creations = new ActorCreations();
  // Run on a later turn of the event loop, where a throw (the app's filter) would end the process: that event is dropped, and told.
  const converted = (events: ShownInspectionEvent[], secrets: readonly string[]) => {
    const kept: StatelyInspectionEvent[] = [];
    let failures: Map<string, number> | undefined;
    for (const event of events) {
      let stately: StatelyInspectionEvent | undefined;
      try {
        stately = toStatelyEvent(event, secrets, memo, creations.snapshotOf(event));
        if (!filter || filter(stately)) kept.push(stately);
      } catch (error) {
        const reason = `${stately === undefined ? 'converting it' : 'its filter'} threw: ${error instanceof Error ? error.message : String(error)}`;
        failures ??= new Map();
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
      }
    }
    for (const [reason, count] of failures ?? []) dropped(count, reason);
    return kept;
  };
  const flush = () => {
    // Read per batch: the agent this observer is given to shares its `secrets` once it is created.
    const secrets = sharedSecrets(observer, own);
    const events = converted(batch, secrets);
    batch = [];
    if (adapter.sendBatch) {
      // Serialised once; secrets are redacted in the text itself.
      const referring = adapter.readsBackReferences ? withBackReferences(events) : undefined;
      adapter.sendBatch(
        (referring ?? events).map((event) => {
          const text = eventText(event);
          return secrets.length > 0 ? redact(text, secrets) : text;
        }),
        referring !== undefined,
      );
      return;
    }
    for (const event of events) adapter.send(secrets.length > 0 ? redactSecrets(event, secrets) : event);
  };
  /** Each actor's last snapshot shown (its creation shows the one it began with): a snapshot that is the very same object shows nothing new. */
  const shownSnapshots = new WeakMap<object, unknown>();
  const observer: Observer<InspectionEvent> = {
    next(event) {
      const began = creations.observe(event);
      if (began !== undefined) shownSnapshots.set(event.actorRef, began);
      if (!isShown(event)) return;
      if (event.type === '@xstate.snapshot') {
        if (shownSnapshots.get(event.actorRef) === event.snapshot) return;
        shownSnapshots.set(event.actorRef, event.snapshot);
      }
      if (batch.push(event) === 1) setImmediate(flush);
    },
  };
  return observer;
}

/**
 * The Stately inspector's event for an XState inspection event, with histories summarised and no
 * live actors or machine in it; the parts of a context that hold no history are the context's own
 * (immutable) objects, not copies.
 */
export function toStatelyEvent(event: ShownInspectionEvent, secrets: readonly string[] = [], memo?: SanitizeMemo, createdWith?: unknown): StatelyInspectionEvent {
  // Object literals, one shape per event type: spreading a shared base cost more than the rest of the conversion.
  const createdAt = Date.now().toString();
  const id = null as unknown as string;
  const { rootId } = event;
  const { sessionId } = event.actorRef;
  switch (event.type) {
    case '@xstate.snapshot': {
      const snapshot = plainSnapshot(event.snapshot, secrets, memo) as never;
      return { _version: PROTOCOL_VERSION, createdAt, id, rootId, sessionId, type: '@xstate.snapshot', event: sanitizeEvent(event.event, secrets, memo), snapshot };
    }
    case '@xstate.event':
      return { _version: PROTOCOL_VERSION, createdAt, id, rootId, sessionId, type: '@xstate.event', event: sanitizeEvent(event.event, secrets, memo), sourceId: event.sourceRef?.sessionId };
    case '@xstate.actor': {
      const { actorRef } = event;
      const actor = inspectedActor(actorRef);
      const config = actor && machineOf(actor)?.config;
      const ownId = actor?.id ?? sessionId;
      // A root actor's id is its session id: the machine's id names it better.
      const name = ownId === sessionId && config?.id !== undefined ? config.id : ownId;
      return {
        _version: PROTOCOL_VERSION,
        createdAt,
        id,
        rootId,
        sessionId,
        type: '@xstate.actor',
        name,
        definition: config === undefined ? JSON.stringify({ id: name }) : machineDefinition(config),
        parentId: actor && parentOf(actor)?.sessionId,
        snapshot: plainSnapshot(createdWith ?? readSnapshot(actorRef) ?? { status: 'active' }, secrets, memo) as never,
      };
    }
  }
}

/** A snapshot as data: XState's own `toJSON` (no machine, no live actors), histories in context and input summarised. */
function plainSnapshot(snapshot: unknown, secrets: readonly string[], memo: SanitizeMemo | undefined): unknown {
  const ownsCopy = typeof (snapshot as { toJSON?: unknown }).toJSON === 'function';
  const data = (ownsCopy ? (snapshot as { toJSON(): unknown }).toJSON() : snapshot) as Record<string, unknown>;
  // `toJSON` made a new object, which can take the summaries in place; an actor's own snapshot is copied first.
  const plain: Record<string, unknown> = ownsCopy && 'status' in data ? data : { status: 'active', ...data };
  if (plain.context !== undefined && plain.context !== null && typeof plain.context === 'object') plain.context = sanitizeContext(plain.context, secrets, memo);
  if (plain.input !== undefined && plain.input !== null && typeof plain.input === 'object') plain.input = sanitizeContext(plain.input, secrets, memo);
  return plain;
}

/** A machine's config as the Stately inspector draws it: JSON, each function (an inline guard, action or `and(…)`) as `{ type: its name }`, as `@statelyai/inspect` writes it. */
export function machineDefinition(config: object): string {
  let definition = definitions.get(config);
  if (definition === undefined) {
    definition = JSON.stringify(config, (_key, value: unknown) => (typeof value === 'function' ? { type: value.name } : value));
    definitions.set(config, definition);
  }
  return definition;
}
