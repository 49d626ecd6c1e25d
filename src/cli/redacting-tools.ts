import type { Tool, ToolSet } from 'ai';
import { redact, redactValue } from '../secrets/redact.js';

type Execute = NonNullable<Tool['execute']>;

/**
 * The same tools, with `secrets` redacted from what each returns, streams
 * (preliminary outputs) or throws, before anything else sees it: the
 * model-facing cut of a long result, the events, the trace and the session.
 * Redacted first, a secret is whole when it is looked for; cut first, the
 * piece of it a cut leaves would pass. `secrets` is read at every call.
 *
 * @example
 * const tools = redactingTools({ ...builtinTools({ cwd }), ...mcpTools }, secrets);
 */
export function redactingTools(tools: ToolSet, secrets: readonly string[]): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [name, tool.execute ? { ...tool, execute: redactingExecute(tool.execute, secrets) } : tool]),
  );
}

function redactingExecute(execute: Execute, secrets: readonly string[]): Execute {
  return (input, options) => {
    let result: unknown;
    try {
      result = execute(input, options);
    } catch (error) {
      throw redactedError(error, secrets);
    }
    if (isAsyncIterable(result)) return redactedParts(result, secrets);
    return Promise.resolve(result).then(
      (output: unknown) => redactValue(output, secrets),
      (error: unknown) => {
        throw redactedError(error, secrets);
      },
    );
  };
}

async function* redactedParts(parts: AsyncIterable<unknown>, secrets: readonly string[]): AsyncIterable<unknown> {
  try {
    for await (const part of parts) yield redactValue(part, secrets);
  } catch (error) {
    throw redactedError(error, secrets);
  }
}

/** The error with its message redacted (a new one of the same name when that changes it, without the original as its cause). */
function redactedError(error: unknown, secrets: readonly string[]): unknown {
  if (typeof error === 'string') return redact(error, secrets);
  if (!(error instanceof Error)) return redactValue(error, secrets);
  const message = redact(error.message, secrets);
  if (message === error.message) return error;
  const redacted = new Error(message);
  redacted.name = error.name;
  return redacted;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
