import { jsonrepair } from 'jsonrepair';

/**
 * How a tool call's arguments were read: `valid` JSON as written, `repaired`
 * by `jsonrepair`, or `invalid` (passed on as the raw text, so that the AI
 * SDK's tool-call parsing marks the call invalid).
 */
export type ToolArgumentsStatus = 'valid' | 'repaired' | 'invalid';

export interface ToolArguments {
  /** The JSON text of an object when `status` is `valid` or `repaired`; otherwise the raw text. */
  input: string;
  status: ToolArgumentsStatus;
}

/**
 * Reads the text a model wrote between `<arguments>` and `</arguments>`.
 * Arguments must be a JSON object; empty arguments mean `{}`. Text that is not
 * a JSON object is repaired with `jsonrepair` when that yields an object.
 *
 * @example
 * readToolArguments('{"a": 1}')   // { input: '{"a": 1}', status: 'valid' }
 * readToolArguments("{a: 'x',}")  // { input: '{"a": "x"}', status: 'repaired' }
 * readToolArguments('{{{')        // { input: '{{{', status: 'invalid' }
 */
export function readToolArguments(rawArguments: string): ToolArguments {
  const text = rawArguments.trim();
  if (text === '') return { input: '{}', status: 'valid' };
  if (isJsonObjectText(text)) return { input: text, status: 'valid' };
  const repaired = tryJsonRepair(text);
  if (repaired !== undefined && isJsonObjectText(repaired)) return { input: repaired.trim(), status: 'repaired' };
  return { input: text, status: 'invalid' };
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function tryJsonRepair(text: string): string | undefined {
  try {
    return jsonrepair(text);
  } catch {
    return undefined;
  }
}
