import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { reasoningCallSettings } from '../../src/cli/reasoning-settings.js';
import { anthropicStreamResponse } from '../support/anthropic-stream.js';
import { googleStreamResponse } from '../support/google-stream.js';
import { streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { asJsonArray, tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const serve = useOpenAIServers();

/** What the provider's server was sent for one prompt run with `flags`. */
async function requestBody(model: string, baseURL: string, flags: string[], env: Record<string, string>) {
  const run = await runCli(['run', 'Think.', '--model', model, '--base-url', baseURL, '--tools', '', '--cwd', await tempDir(), '--json', ...flags], { env: cleanEnv(env) });
  expect(run.stderr).toBe('');
  return run;
}

describe('reasoningCallSettings', () => {
  it("maps an effort to the AI SDK's reasoning setting and a budget to the provider's own option", () => {
    expect(reasoningCallSettings('openai', { effort: 'high' })).toEqual({ reasoning: 'high' });
    expect(reasoningCallSettings('anthropic', { budget: 2048 })).toEqual({ providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } } });
    expect(reasoningCallSettings('google', { effort: 'low' })).toEqual({ reasoning: 'low', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } });
    expect(reasoningCallSettings('google', { budget: 512 })).toEqual({ providerOptions: { google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } } } });
    expect(reasoningCallSettings('openai', {})).toEqual({});
    expect(() => reasoningCallSettings('openai-compatible', { budget: 10 })).toThrow('openai-compatible models take no thinking budget; use --reasoning-effort');
  });
});

describe('loopchart run --reasoning-effort and --thinking-budget, on the wire of each provider', () => {
  it('openai and openai-compatible: reasoning_effort', async () => {
    const server = await serve([streamResponse({ text: 'One.' }), streamResponse({ text: 'Two.' })]);
    await requestBody('openai:o-test', server.baseURL, ['--reasoning-effort', 'high', '--api-key-env', 'K'], { K: 'sk-reasoning' });
    await requestBody('openai-compatible:qwen-test', server.baseURL, ['--reasoning-effort', 'low'], {});
    expect(server.requests.map((request) => (request.body as unknown as { reasoning_effort?: string }).reasoning_effort)).toEqual(['high', 'low']);
  });

  it('anthropic: a thinking budget', async () => {
    const server = await serve([anthropicStreamResponse({ thinking: ['Hmm.'], text: ['Done.'] })], { path: '/v1/messages' });
    await requestBody('anthropic:claude-sonnet-4-5', `${server.url}/v1`, ['--thinking-budget', '2048'], { ANTHROPIC_API_KEY: 'sk-ant-reasoning' });
    expect(server.requests[0]!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 } });
  });

  it('google: a thinking budget, with the thoughts asked back', async () => {
    const server = await serve([googleStreamResponse({ thoughts: ['Hmm.'], text: ['Done.'] })], { path: /^\/v1beta\/models\/gemini-test:streamGenerateContent\?alt=sse$/ });
    await requestBody('google:gemini-test', `${server.url}/v1beta`, ['--thinking-budget', '1024'], { GOOGLE_GENERATIVE_AI_API_KEY: 'g-reasoning' });
    expect(server.requests[0]!.body).toMatchObject({ generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } });
  });

  it('refuses a budget for OpenAI, both flags at once, a bad effort and either flag on the scripted model', async () => {
    const script = await writeScript(await tempDir(), 'hi.json', { prompt: 'hi', turns: [{ text: 'Hello.' }] });
    const env = cleanEnv({ OPENAI_API_KEY: 'sk-unused' });
    expect(await runCli(['run', 'x', '--model', 'openai:o-test', '--thinking-budget', '100'], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining('openai models take no thinking budget') });
    expect(await runCli(['run', 'x', '--reasoning-effort', 'low', '--thinking-budget', '100'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give one of them') });
    expect(await runCli(['run', 'x', '--reasoning-effort', 'max'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--reasoning-effort takes one of low, medium, high, got "max"') });
    expect(await runCli(['run', script, '--reasoning-effort', 'low'])).toMatchObject({ code: 2, stderr: expect.stringContaining('need a real model (--model)') });
  }, 60_000);
});

describe('the reasoning a run shows', () => {
  const thinks = { prompt: 'Think.', turns: [{ reasoning: 'Let me weigh it.', text: 'Done.' }] };

  it('is in --events as reasoning-delta events, and in the HTML report, set apart from the text', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'thinks.json', thinks);
    const events = JSON.parse(asJsonArray((await runCli(['run', script, '--events'])).stdout)) as Array<{ type: string; text?: string }>;
    expect(events.filter((event) => event.type === 'reasoning-delta').map((event) => event.text).join('')).toBe('Let me weigh it.');

    const report = path.join(dir, 'report.html');
    expect((await runCli(['run', script, '--report', report])).code).toBe(0);
    expect(await readFile(report, 'utf8')).toContain('<div class="step-reasoning">Let me weigh it.</div><div class="step-text">Done.</div>');
  });

  it('is dimmed on stderr when colour is on, apart from the answer on stdout', async () => {
    const script = await writeScript(await tempDir(), 'thinks.json', thinks);
    const run = await runCli(['run', script], { env: cleanEnv({ FORCE_COLOR: '1' }) });
    expect(run.stdout).toBe('Done.\n');
    // Each delta dimmed as it streams.
    expect(run.stderr).toContain('\u001b[2mLet\u001b[22m\u001b[2m me\u001b[22m\u001b[2m weigh\u001b[22m\u001b[2m it.\u001b[22m\n');
  });
});
