import { readFile } from 'node:fs/promises';
import { asSchema, jsonSchema, Output } from 'ai';
import { z } from 'zod';
import { outputSchemaCheck } from './output-schema-check.js';
import { UsageError } from './usage-error.js';

/**
 * `--output-schema FILE`: a JSON Schema file, as the run's structured output
 * (`Output.object` over zod's `z.fromJSONSchema`, so the final answer is
 * validated against it, not only parsed). The schema describes an object.
 * Answers are checked in a worker thread under a time limit
 * (`outputSchemaCheck`): a `pattern` that backtracks catastrophically makes
 * the answer invalid instead of hanging the run.
 *
 * @example
 * const output = await loadOutputSchema('answer.schema.json');
 * createAgent({ model, output });
 * @throws UsageError when the file cannot be read, is not JSON, or is not a JSON Schema of an object.
 */
export async function loadOutputSchema(file: string, options: { timeLimitMs?: number } = {}): Promise<Output.Output> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--output-schema: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema: ${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || (json as { type?: unknown }).type !== 'object') {
    throw new UsageError(`--output-schema: ${file} must be a JSON Schema of an object ({ "type": "object", "properties": … })`);
  }
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new UsageError(`--output-schema: ${file} is not a JSON Schema loopchart can check answers against: ${error instanceof Error ? error.message : String(error)}`);
  }
  const validate = outputSchemaCheck(json, options);
  return Output.object({ schema: jsonSchema(() => asSchema(schema).jsonSchema, { validate }) });
}
