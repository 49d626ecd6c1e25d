/**
 * Back-references inside one batch frame: what an event repeats of an earlier
 * event of the same frame is written as a reference to it. A tool loop's root
 * actor sends a snapshot per macrostep, each with the whole context (config,
 * history summary, run record) and each repeating the event its
 * `@xstate.event` carried just before; with back-references a snapshot costs
 * what changed. A frame stays self-contained (the relay replays whole frames to
 * a page that connects late), and resolving gives every event back as
 * `JSON.parse` of its full text would: equal, keys possibly in another order.
 *
 * - An event's `event` that is the very object an earlier line wrote as its
 *   `event` is written `{"@loopchart.same": L}`: the `event` of line L.
 * - The snapshot of an actor whose snapshot an earlier line carries is written
 *   as a patch of it, `{"@loopchart.patch": {"base": L, "set": {…}, "unset":
 *   […]}}`; a changed plain object in `set` (the context) may itself be a patch
 *   (without `base`) of the object it replaces.
 *
 * Unchanged means the same object: XState contexts are immutable, and the
 * events of a frame are serialised together, so the same object is the same
 * text.
 *
 * @example
 * ```ts
 * const referring = withBackReferences(events); // undefined: write `events` whole
 * const texts = (referring ?? events).map((event) => JSON.stringify(event));
 * resolveBackReferences(texts.map((text) => JSON.parse(text))); // events, as JSON data
 * ```
 */

/**
 * How deep a patch goes into changed objects: the snapshot, then its context
 * (a changed value of the context is written whole). Deeper patches write
 * fewer bytes but cost more to make than they save in serialising.
 */
const PATCH_DEPTH = 1;

type Data = Record<string, unknown>;

/** An object JSON writes key by key (not an array, nor anything with `toJSON`, nor a class instance). */
function isPlainObject(value: unknown): value is Data {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** A value `JSON.stringify` writes as an object's property (it leaves out these, and what a `toJSON` turns into them). */
function isWritten(value: unknown): boolean {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return false;
  const toJSON = value !== null && typeof value === 'object' ? (value as { toJSON?: unknown }).toJSON : undefined;
  return typeof toJSON !== 'function' || isWritten((toJSON as () => unknown).call(value));
}

/** True when the value is an object with the key as its own: plain data that reads as a back-reference. */
function hasOwnKey(value: unknown, key: string): boolean {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key);
}

/** The events hold data that reads as a back-reference: such a batch is written without any. */
class LooksLikeReference extends Error {}

/** What changed from `base` to `next`, by identity. */
function diff(base: Data, next: Data, depth: number): { set?: Data; unset?: string[] } {
  let set: Data | undefined;
  let unset: string[] | undefined;
  for (const key of Object.keys(next)) {
    const value = next[key];
    const before = base[key];
    if (value === before) continue;
    if (!isWritten(value)) {
      if (Object.hasOwn(base, key) && isWritten(before)) (unset ??= []).push(key);
      continue;
    }
    set ??= {};
    const nested = depth < PATCH_DEPTH && isPlainObject(value) && isPlainObject(before);
    // Where a nested patch may stand, a whole value must not look like one.
    if (!nested && depth < PATCH_DEPTH && hasOwnKey(value, '@loopchart.patch')) throw new LooksLikeReference();
    const changed = nested ? { '@loopchart.patch': diff(before, value, depth + 1) } : value;
    if (key === '__proto__') Object.defineProperty(set, key, { value: changed, enumerable: true, writable: true, configurable: true });
    else set[key] = changed;
  }
  for (const key of Object.keys(base)) if (!Object.hasOwn(next, key) && isWritten(base[key])) (unset ??= []).push(key);
  return { ...(set ? { set } : {}), ...(unset ? { unset } : {}) };
}

/**
 * The events to write, in order, with what each repeats of an earlier one
 * replaced by back-references; `undefined` when some event holds data that
 * would read as one (an own `@loopchart.same` or `@loopchart.patch` key where
 * a reference may stand): write that batch whole. The events themselves are
 * not changed: an event that refers back is a copy.
 */
export function withBackReferences<T extends object>(events: readonly T[]): object[] | undefined {
  const eventLines = new Map<object, number>();
  const snapshots = new Map<unknown, { line: number; snapshot: Data }>();
  try {
    return events.map((original, line) => {
      const { event, snapshot, sessionId } = original as { event?: unknown; snapshot?: unknown; sessionId?: unknown };
      if (hasOwnKey(event, '@loopchart.same') || hasOwnKey(snapshot, '@loopchart.patch')) throw new LooksLikeReference();
      let written: Data | undefined;
      if (event !== null && typeof event === 'object') {
        const earlier = eventLines.get(event);
        if (earlier === undefined) eventLines.set(event, line);
        else written = { ...original, event: { '@loopchart.same': earlier } };
      }
      if (isPlainObject(snapshot) && sessionId !== undefined) {
        const earlier = snapshots.get(sessionId);
        snapshots.set(sessionId, { line, snapshot });
        if (earlier) written = { ...(written ?? original), snapshot: { '@loopchart.patch': { base: earlier.line, ...diff(earlier.snapshot, snapshot, 0) } } };
      }
      return written ?? original;
    });
  } catch (error) {
    if (error instanceof LooksLikeReference) return undefined;
    throw error;
  }
}

/**
 * The object a patch makes of `base`: `unset` keys removed, `set` keys put
 * (a nested patch, one level down only, as `withBackReferences` writes them).
 * Anything malformed is taken as no change. Self-contained (the relay's page
 * runs its source as it is): it names nothing outside itself.
 */
export function applyPatch(base: unknown, patch: unknown, depth = 0): Data {
  const out: Data = base !== null && typeof base === 'object' && !Array.isArray(base) ? { ...(base as Data) } : {};
  const { set, unset } = (patch ?? {}) as { set?: unknown; unset?: unknown };
  if (Array.isArray(unset)) for (const key of unset) if (typeof key === 'string') delete out[key];
  if (set === null || typeof set !== 'object' || Array.isArray(set)) return out;
  for (const key of Object.keys(set)) {
    const value = (set as Data)[key];
    // One level of nesting (PATCH_DEPTH): deeper, a value is data, whatever its keys.
    const nested = depth < 1 && value !== null && typeof value === 'object' ? (value as Data)['@loopchart.patch'] : undefined;
    Object.defineProperty(out, key, {
      value: nested !== null && typeof nested === 'object' ? applyPatch(out[key], nested, depth + 1) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Resolves the back-references of one frame's parsed events, in place, and
 * returns them. `onResolved` (if given) gets each line once it is resolved,
 * before the next is: a throw from it stops the resolving. Self-contained but
 * for {@link applyPatch}, as the page runs it.
 */
export function resolveBackReferences(events: unknown[], onResolved?: (event: unknown, line: number) => void): unknown[] {
  for (let line = 0; line < events.length; line++) {
    const record = events[line];
    if (record !== null && typeof record === 'object') {
      const { event, snapshot } = record as Data;
      // A reference reaches back only: a line that is not an earlier one gives nothing.
      const same = event !== null && typeof event === 'object' ? (event as Data)['@loopchart.same'] : undefined;
      if (typeof same === 'number') (record as Data).event = same < line ? (events[same] as Data | undefined)?.event : undefined;
      const patch = snapshot !== null && typeof snapshot === 'object' ? (snapshot as Data)['@loopchart.patch'] : undefined;
      if (patch !== null && typeof patch === 'object') {
        const base = (patch as { base?: unknown }).base;
        (record as Data).snapshot = applyPatch(typeof base === 'number' && base < line ? (events[base] as Data | undefined)?.snapshot : undefined, patch);
      }
    }
    onResolved?.(record, line);
  }
  return events;
}

/**
 * Script for a page: it defines `applyPatch` and the constant `resolveFrameReferences`,
 * {@link resolveBackReferences} (by whatever name a bundler gave it).
 */
export function backReferenceResolverSource(): string {
  return `${applyPatch.toString()}\nconst resolveFrameReferences = (${resolveBackReferences.toString()});`;
}
