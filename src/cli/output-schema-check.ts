import { createRequire } from 'node:module';
import type { ValidationResult } from '@ai-sdk/provider-utils';
import { BoundedWorker, WorkerDeadlineError } from '../tools/bounded-worker.js';

/** How long checking one answer against `--output-schema` may take (starting the worker aside): far more than any sane schema needs. */
export const OUTPUT_SCHEMA_TIME_LIMIT_MS = 2_000;

// Runs in the worker (CommonJS, evaluated from this string): zod's reading of the JSON Schema, and
// every check of an answer against it, regular expressions from `pattern` included.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { z } = require(workerData.zod);
const schema = z.fromJSONSchema(workerData.jsonSchema);
parentPort.on('message', ({ id, value }) => {
  const result = schema.safeParse(value);
  parentPort.postMessage(result.success ? { id, valid: true, value: result.data } : { id, valid: false, message: result.error.message });
});
parentPort.postMessage({ ready: true });
`;

/**
 * Checks answers against a JSON Schema (zod's `z.fromJSONSchema`) in a worker
 * thread, under a time limit: a `pattern` such as `^(a+)+$` backtracks
 * catastrophically on an answer like `"aaaa…!"`, and on the main thread it
 * would hang the run (no Ctrl+C, no abort, no timeout). Past the limit the
 * worker is stopped and the answer counts as not matching, with a message
 * that says why.
 *
 * @example
 * const check = outputSchemaCheck({ type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]+$' } } });
 * await check({ code: 'ABC' }); // { success: true, value: { code: 'ABC' } }
 */
export function outputSchemaCheck(jsonSchema: object, { timeLimitMs = OUTPUT_SCHEMA_TIME_LIMIT_MS }: { timeLimitMs?: number } = {}): (value: unknown) => Promise<ValidationResult<unknown>> {
  const worker = new BoundedWorker(WORKER_SOURCE, { zod: createRequire(import.meta.url).resolve('zod'), jsonSchema });
  return async (value) => {
    try {
      const reply = await worker.run({ value }, { deadline: Date.now() + timeLimitMs });
      return reply.valid === true ? { success: true, value: reply.value } : { success: false, error: new Error(String(reply.message)) };
    } catch (error) {
      if (!(error instanceof WorkerDeadlineError)) throw error;
      return {
        success: false,
        error: new Error(
          `checking the answer against the schema took more than ${timeLimitMs / 1000} s and was stopped: ` +
            'a "pattern" in the schema backtracks catastrophically on it (nested repetition such as (a+)+ takes exponential time)',
        ),
      };
    }
  };
}
