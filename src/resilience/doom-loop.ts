/**
 * Doom-loop detection: the same tool called with the same input in several
 * consecutive steps. Pure functions; fingerprints are computed once per
 * finished step, never per streamed chunk.
 */

/** Serialises a JSON-like value with sorted object keys, so key order and whitespace do not matter. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') {
    const parsed = tryParseJson(value);
    // A string that holds JSON (raw provider input) compares equal to the parsed object it encodes.
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) return canonicalJson(parsed);
    return JSON.stringify(value.trim());
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  // Built in one loop over the sorted keys (a filter, a map and a join cost an array and a closure each, at every call of every step).
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let json = '{';
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    if (json.length > 1) json += ',';
    json += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${json}}`;
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The identity of one tool call for doom-loop purposes: tool name plus canonical input. */
export function toolCallFingerprint(call: { toolName: string; input: unknown }): string {
  return `${call.toolName}:${canonicalJson(call.input)}`;
}

/**
 * For each distinct call fingerprint of this step, how many consecutive steps
 * (this one included) made it. A fingerprint absent from this step drops out.
 */
export type DoomStreaks = Readonly<Record<string, number>>;

export function nextDoomStreaks(
  previous: DoomStreaks,
  calls: ReadonlyArray<{ toolName: string; input: unknown }>,
): DoomStreaks {
  const next: Record<string, number> = {};
  for (const call of calls) {
    const fingerprint = toolCallFingerprint(call);
    if (next[fingerprint] === undefined) next[fingerprint] = (previous[fingerprint] ?? 0) + 1;
  }
  return next;
}

/** The fingerprint that reached the threshold, if any. */
export function doomLoopFingerprint(streaks: DoomStreaks, threshold: number): string | undefined {
  for (const [fingerprint, count] of Object.entries(streaks)) {
    if (count >= threshold) return fingerprint;
  }
  return undefined;
}
