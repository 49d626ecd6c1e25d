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
 * const texts = withBackReferences(events).map((event) => JSON.stringify(event));
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

/** A value `JSON.stringify` writes as an object's property (it leaves these three out). */
function isWritten(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

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
    const changed = depth < PATCH_DEPTH && isPlainObject(value) && isPlainObject(before) ? { '@loopchart.patch': diff(before, value, depth + 1) } : value;
    if (key === '__proto__') Object.defineProperty(set, key, { value: changed, enumerable: true, writable: true, configurable: true });
    else set[key] = changed;
  }
  for (const key of Object.keys(base)) if (!Object.hasOwn(next, key) && isWritten(base[key])) (unset ??= []).push(key);
  return { ...(set ? { set } : {}), ...(unset ? { unset } : {}) };
}

/**
 * The events to write, in order, with what each repeats of an earlier one
 * replaced by back-references. The events themselves are not changed: an event
 * that refers back is a copy.
 */
export function withBackReferences<T extends object>(events: readonly T[]): object[] {
  const eventLines = new Map<object, number>();
  const snapshots = new Map<unknown, { line: number; snapshot: Data }>();
  return events.map((original, line) => {
    const { event, snapshot, sessionId } = original as { event?: unknown; snapshot?: unknown; sessionId?: unknown };
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
}

/**
 * The object a patch makes of `base`. Self-contained (the relay's page runs its
 * source as it is): it names nothing outside itself but {@link applyPatch}.
 */
export function applyPatch(base: unknown, patch: { set?: Data; unset?: string[] }): Data {
  const out: Data = base !== null && typeof base === 'object' && !Array.isArray(base) ? { ...(base as Data) } : {};
  for (const key of patch.unset ?? []) delete out[key];
  const set = patch.set ?? {};
  for (const key of Object.keys(set)) {
    const value = set[key];
    const nested = value !== null && typeof value === 'object' ? (value as Data)['@loopchart.patch'] : undefined;
    Object.defineProperty(out, key, {
      value: nested !== null && typeof nested === 'object' ? applyPatch(out[key], nested) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Resolves the back-references of one frame's parsed events, in place, and
 * returns them. Self-contained but for {@link applyPatch}, as the page runs it.
 */
export function resolveBackReferences(events: unknown[]): unknown[] {
  for (let line = 0; line < events.length; line++) {
    const record = events[line];
    if (record === null || typeof record !== 'object') continue;
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
  return events;
}

/** The source of the two resolving functions, for a page's script: it defines `applyPatch` and `resolveBackReferences`. */
export function backReferenceResolverSource(): string {
  return `${applyPatch.toString()}\n${resolveBackReferences.toString()}`;
}
