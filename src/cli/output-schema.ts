import { readFile } from 'node:fs/promises';
import { Output } from 'ai';
import { z } from 'zod';
import { UsageError } from './usage-error.js';

/**
 * `--output-schema FILE`: a JSON Schema file, as the run's structured output
 * (`Output.object` over zod's `z.fromJSONSchema`, so the final answer is
 * validated against it, not only parsed). The schema describes an object.
 *
 * @example
 * const output = await loadOutputSchema('answer.schema.json');
 * createAgent({ model, output });
 * @throws UsageError when the file cannot be read, is not JSON, or is not a JSON Schema of an object.
 */
export async function loadOutputSchema(file: string): Promise<Output.Output> {
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
  return Output.object({ schema });
}
