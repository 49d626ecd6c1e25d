import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { streamResponse, useOpenAIServers, type ScriptedHttpResponse } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);
const serve = useOpenAIServers();

const schema = { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'], additionalProperties: false };

async function run(responses: ScriptedHttpResponse[], schemaText = JSON.stringify(schema)) {
  const server = await serve(responses);
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

describe('loopchart run --output-schema with an openai-compatible model', () => {
  const providerWarning = 'warning from openai-compatible.chat / qwen: The feature "responseFormat" is not supported. JSON response format schema is only supported with structuredOutputs';

  async function runCompatible(responses: ScriptedHttpResponse[], extra: string[] = []) {
    const server = await serve(responses);
    const cwd = await tempDir();
    const file = path.join(cwd, 'answer.schema.json');
    await writeFile(file, JSON.stringify(schema));
    const cli = await runCli(['run', 'How warm is it in Oslo?', '--model', 'openai-compatible:qwen', '--base-url', server.baseURL, '--cwd', cwd, '--output-schema', file, '--json', ...extra], {
      env: cleanEnv(),
    });
    return { ...cli, server };
  }

  it("sends the schema in the instructions, and prints the provider's warning once however many calls repeat it, and it is in --json", async () => {
    const { code, stdout, stderr, server } = await runCompatible([
      streamResponse({ text: '{"city":"Oslo","celsius":"cold"}' }),
      streamResponse({ text: ['{"city":"Oslo",', '"celsius":4}'] }),
    ]);

    expect(code).toBe(0);
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(request.body!.response_format).toEqual({ type: 'json_object' });
      const system = request.body!.messages[0]!;
      expect(system.role).toBe('system');
      expect(JSON.parse(/^JSON schema:\n(.*)\nYou MUST answer with a JSON object that matches the JSON schema above\.$/s.exec(String(system.content))![1]!)).toMatchObject({
        type: 'object',
        properties: { city: { type: 'string' }, celsius: { type: 'number' } },
        required: ['city', 'celsius'],
      });
    }
    const lines = stderr.trim().split('\n');
    expect(lines.filter((line) => line === providerWarning)).toHaveLength(1);
    expect(lines.filter((line) => line.includes('The output schema went into the instructions'))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('warning'))).toHaveLength(2);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ outcome: 'completed', output: { city: 'Oslo', celsius: 4 } });
    expect(result.warnings).toContainEqual({ type: 'unsupported', feature: 'responseFormat', details: 'JSON response format schema is only supported with structuredOutputs' });
    expect(result.warnings).toContainEqual(expect.objectContaining({ type: 'compatibility', feature: 'responseFormat' }));
  });

  it('refuses --structured-outputs for a model that is not openai-compatible, the configured one or the scripted one', async () => {
    const cwd = await tempDir();
    const file = path.join(cwd, 'schema.json');
    await writeFile(file, JSON.stringify(schema));
    for (const model of [['--model', 'openai:gpt-4.1'], []]) {
      const cli = await runCli(['run', 'Hi', ...model, '--cwd', cwd, '--output-schema', file, '--structured-outputs'], { env: cleanEnv({ OPENAI_API_KEY: 'sk-test' }) });
      expect(cli.code).toBe(2);
      expect(cli.stderr).toMatch(/^loopchart: --structured-outputs is for --model openai-compatible:<id> .*the other providers send the schema in their own form\n/);
    }
  });

  it('with --structured-outputs sends the schema as a json_schema response format, and nothing warns', async () => {
    const { code, stdout, stderr, server } = await runCompatible([streamResponse({ text: '{"city":"Oslo","celsius":4}' })], ['--structured-outputs']);

    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(server.requests[0]!.body!.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: { properties: { city: { type: 'string' }, celsius: { type: 'number' } } } } });
    expect(server.requests[0]!.body!.messages.some((message) => message.role === 'system')).toBe(false);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'completed', output: { city: 'Oslo', celsius: 4 }, warnings: [] });
  });
});
