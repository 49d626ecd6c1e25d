import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, streamResponse, type OpenAIServer, type ScriptedHttpResponse } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir } from './support/scripts.js';

const servers: OpenAIServer[] = [];
beforeAll(() => buildCli(), 60_000);
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const schema = { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'], additionalProperties: false };

async function run(responses: ScriptedHttpResponse[], schemaText = JSON.stringify(schema)) {
  const server = await startOpenAIServer(responses);
  servers.push(server);
  const cwd = await tempDir();
  const file = path.join(cwd, 'answer.schema.json');
  await writeFile(file, schemaText);
  const cli = await runCli(['run', 'How warm is it in Oslo?', '--model', 'openai:gpt-test', '--base-url', server.baseURL, '--cwd', cwd, '--output-schema', file, '--json'], {
    env: cleanEnv({ OPENAI_API_KEY: 'sk-output-test' }),
  });
  return { ...cli, server };
}

describe('loopchart run --output-schema', () => {
  it('sends the schema as the response format and gives the validated answer as output in --json', async () => {
    const { code, stdout, server } = await run([streamResponse({ text: ['{"city":"Oslo",', '"celsius":4}'] })]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'completed', output: { city: 'Oslo', celsius: 4 } });
    expect(server.requests[0]!.body!.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: { properties: { city: { type: 'string' }, celsius: { type: 'number' } } } } });
  });

  it('asks again when the answer does not match, and fails with invalid-output (exit 1) when it never does', async () => {
    const wrong = () => streamResponse({ text: '{"city":"Oslo","celsius":"cold"}' });
    const { code, stdout, server } = await run([wrong(), wrong(), wrong()]);
    expect(code).toBe(1);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ outcome: 'failed', error: { kind: 'invalid-output' } });
    expect(result.output).toBeUndefined();
    expect(server.requests).toHaveLength(3);
  });

  it('an answer on which a pattern of the schema backtracks catastrophically fails the run (invalid-output, exit 1) instead of hanging it', async () => {
    const backtracking = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] };
    const evil = () => streamResponse({ text: JSON.stringify({ code: `${'a'.repeat(40)}!` }) });
    const { code, stdout, server } = await run([evil(), evil(), evil()], JSON.stringify(backtracking));
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'failed', error: { kind: 'invalid-output', message: expect.stringContaining('did not match schema') } });
    expect(server.requests).toHaveLength(3);
  }, 60_000);

  it('refuses a schema file that is not a JSON Schema of an object, before calling the model', async () => {
    const { code, stderr, server } = await run([], '{"type":"string"}');
    expect(code).toBe(2);
    expect(stderr).toContain('--output-schema');
    expect(stderr).toContain('must be a JSON Schema of an object');
    expect(server.requests).toHaveLength(0);
  });
});
