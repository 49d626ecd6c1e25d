/**
 * Where the CLI's provider key can go: not to another origin by a redirect,
 * whichever provider sends it, and not over plain http to another machine,
 * wherever the base URL came from (`--base-url` or the provider's variable).
 */
import { generateText } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseModelSpec, resolveModel } from '../../src/cli/model.js';
import { anthropicStreamResponse } from '../support/anthropic-stream.js';
import { errorResponse, streamResponse, useOpenAIServers, type OpenAIServer, type ScriptedHttpResponse } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);
const serveOn = useOpenAIServers();

async function serve(responses: ScriptedHttpResponse[] = [], path: string | RegExp = /.*/): Promise<OpenAIServer> {
  return serveOn(responses, { path });
}

const KEY = 'sk-test-destination-7f3a9c1e5b';

describe('a provider key and a redirect to another origin', () => {
  it.each([
    ['openai', 'openai:gpt-test', '/v1', { OPENAI_API_KEY: KEY }, undefined],
    ['anthropic', 'anthropic:claude-test', '/v1', { ANTHROPIC_API_KEY: KEY }, undefined],
    ['google', 'google:gemini-test', '/v1beta', { GOOGLE_GENERATIVE_AI_API_KEY: KEY }, undefined],
    ['openai-compatible', 'openai-compatible:llama-test', '/v1', { LOCAL_API_KEY: KEY }, 'LOCAL_API_KEY'],
  ] as const)('%s: the call fails naming both origins, and the other origin gets nothing', async (_provider, model, basePath, env, apiKeyEnv) => {
    const elsewhere = await serve();
    const server = await serve([errorResponse(307, { headers: { location: `${elsewhere.url}/collect` } })]);
    const { model: languageModel } = await resolveModel({ spec: parseModelSpec(model), baseURL: `${server.url}${basePath}`, env, ...(apiKeyEnv ? { apiKeyEnv } : {}), processEnv: {} });

    const call = generateText({ model: languageModel, prompt: 'Hi', maxRetries: 0 });

    await expect(call).rejects.toThrow(`${server.url} answered 307 with a redirect to ${elsewhere.url}, another origin`);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.headers)).toContain(KEY);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('the base URL from the provider\'s variable', () => {
  it.each([
    ['OPENAI_BASE_URL', 'openai:gpt-test', 'OPENAI_API_KEY'],
    ['ANTHROPIC_BASE_URL', 'anthropic:claude-test', 'ANTHROPIC_API_KEY'],
    ['GOOGLE_GENERATIVE_AI_BASE_URL', 'google:gemini-test', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  ])('%s on plain http to another machine is refused as --base-url is (exit 2, nothing sent)', async (variable, model, keyVariable) => {
    const { code, stderr } = await runCli(['run', 'Hi', '--model', model, '--cwd', await tempDir()], {
      env: cleanEnv({ [keyVariable]: KEY, [variable]: 'http://192.0.2.10/v1' }),
    });

    expect(code).toBe(2);
    expect(stderr).toContain(`${variable} http://192.0.2.10/v1 is plain http to another machine: the API key in ${keyVariable} would cross the network unencrypted`);
    expect(stderr).toContain('--allow-insecure-key');
    expect(stderr).not.toContain(KEY);
  });

  it('is used when it is on this machine, and --base-url wins over it', async () => {
    const server = await serve([anthropicStreamResponse({ text: ['Hello.'] })], '/v1/messages');
    const viaVariable = await runCli(['run', 'Hi', '--model', 'anthropic:claude-test', '--cwd', await tempDir(), '--json'], {
      env: cleanEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: `${server.url}/v1` }),
    });
    expect(viaVariable.code).toBe(0);
    expect(server.requests.map((request) => request.headers['x-api-key'])).toEqual([KEY]);

    const openai = await serve([streamResponse({ text: 'Hello.' })]);
    const viaFlag = await runCli(['run', 'Hi', '--model', 'openai:gpt-test', '--base-url', openai.baseURL, '--cwd', await tempDir()], {
      env: cleanEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'http://192.0.2.10/v1' }),
    });
    expect(viaFlag.code).toBe(0);
    expect(openai.requests).toHaveLength(1);
  });

  it('that is not an http or https URL is a usage error naming the variable', async () => {
    const { code, stderr } = await runCli(['run', 'Hi', '--model', 'openai:gpt-test', '--cwd', await tempDir()], {
      env: cleanEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'localhost:8080' }),
    });
    expect(code).toBe(2);
    expect(stderr).toContain('OPENAI_BASE_URL must be an http or https URL (the OpenAI API\'s base URL), got "localhost:8080"');
  });
});
