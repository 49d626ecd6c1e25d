/**
 * `--model <provider>:<id>` for every provider the CLI knows, end to end: the
 * built CLI as a child process against a local server on 127.0.0.1 that speaks
 * that provider's own wire protocol, through the official AI SDK provider.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anthropicStreamResponse } from '../support/anthropic-stream.js';
import { googleStreamResponse } from '../support/google-stream.js';
import { expectValidHistory } from '../support/history.js';
import { streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);
const serve = useOpenAIServers();

/** A workspace with `notes.txt`, and a run that reads it with the `read` tool and answers. */
async function runReadingNotes(modelArgs: string[], env: Record<string, string>) {
  const cwd = await tempDir();
  await writeFile(path.join(cwd, 'notes.txt'), 'the answer is 42\n');
  const { code, stdout, stderr } = await runCli(['run', 'What does notes.txt say?', ...modelArgs, '--cwd', cwd, '--tools', 'read', '--json'], { env: cleanEnv(env) });
  // Nothing on stderr but the provider's warnings, which the test servers' made-up models draw (an unknown model's token limit, no thought signatures).
  expect(stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning from '))).toEqual([]);
  expect(code).toBe(0);
  const result = JSON.parse(stdout) as { outcome: string; text: string; stepCount: number; toolCallCount: number; messages: Array<{ role: string; content: unknown }> };
  await expectValidHistory(result.messages as never);
  return result;
}

const reasoningOf = (result: Awaited<ReturnType<typeof runReadingNotes>>): Array<{ type: string; text?: string }> =>
  result.messages
    .flatMap((message) => (message.role === 'assistant' && Array.isArray(message.content) ? (message.content as Array<{ type: string; text?: string }>) : []))
    .filter((part) => part.type === 'reasoning');

describe('--model anthropic:<id> (Anthropic Messages API, SSE)', () => {
  it('streams thinking, text and a tool use, and sends the thinking, the tool use and its result back on the next request', async () => {
    const server = await serve(
      [
        anthropicStreamResponse({ thinking: ['The file will ', 'say.'], text: ['Reading it.'], toolUses: [{ id: 'toolu_1', name: 'read', input: { path: 'notes.txt' } }] }),
        anthropicStreamResponse({ text: ['It says ', 'the answer is 42.'] }),
      ],
      { path: '/v1/messages' },
    );
    const result = await runReadingNotes(['--model', 'anthropic:claude-test', '--base-url', `${server.url}/v1`], { ANTHROPIC_API_KEY: 'sk-ant-test-1' });

    expect(result).toMatchObject({ outcome: 'completed', text: 'It says the answer is 42.', stepCount: 2, toolCallCount: 1 });
    expect(reasoningOf(result)).toEqual([expect.objectContaining({ text: 'The file will say.' })]);
    expect(server.requests.map((request) => request.headers['x-api-key'])).toEqual(['sk-ant-test-1', 'sk-ant-test-1']);
    const [first, second] = server.requests.map((request) => request.body as unknown as { model: string; stream: boolean; tools: Array<{ name: string }>; messages: Array<{ role: string; content: Array<Record<string, unknown>> }> });
    expect(first).toMatchObject({ model: 'claude-test', stream: true });
    expect(first!.tools.map((tool) => tool.name)).toEqual(['read']);
    const [, assistant, toolResults] = second!.messages;
    expect(assistant!.role).toBe('assistant');
    expect(assistant!.content).toEqual([
      expect.objectContaining({ type: 'thinking', thinking: 'The file will say.', signature: 'sig-test' }),
      expect.objectContaining({ type: 'text', text: 'Reading it.' }),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'notes.txt' } }),
    ]);
    expect(toolResults!.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('the answer is 42') })]);
  });
});

describe('--model google:<id> (Gemini API, streamGenerateContent SSE)', () => {
  it('streams thoughts, text and a function call, and sends the call and its response back on the next request', async () => {
    const server = await serve(
      [
        googleStreamResponse({ thoughts: ['Reading the file first.'], text: ['Reading it.'], functionCalls: [{ name: 'read', args: { path: 'notes.txt' } }] }),
        googleStreamResponse({ text: ['It says the answer is 42.'] }),
      ],
      { path: /^\/v1beta\/models\/gemini-test:streamGenerateContent\?alt=sse$/ },
    );
    const result = await runReadingNotes(['--model', 'google:gemini-test', '--base-url', `${server.url}/v1beta`], { GOOGLE_GENERATIVE_AI_API_KEY: 'g-test-1' });

    expect(result).toMatchObject({ outcome: 'completed', text: 'It says the answer is 42.', stepCount: 2, toolCallCount: 1 });
    expect(reasoningOf(result)).toEqual([expect.objectContaining({ text: 'Reading the file first.' })]);
    expect(server.requests.map((request) => request.headers['x-goog-api-key'])).toEqual(['g-test-1', 'g-test-1']);
    const second = server.requests[1]!.body as unknown as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
    const model = second.contents.find((content) => content.role === 'model')!;
    expect(model.parts).toEqual([
      expect.objectContaining({ text: 'Reading the file first.', thought: true }),
      expect.objectContaining({ text: 'Reading it.' }),
      expect.objectContaining({ functionCall: expect.objectContaining({ name: 'read', args: { path: 'notes.txt' } }) }),
    ]);
    const response = second.contents.at(-1)!;
    expect(response.parts).toEqual([expect.objectContaining({ functionResponse: expect.objectContaining({ name: 'read', response: expect.objectContaining({ content: expect.stringContaining('the answer is 42') }) }) })]);
  });
});

describe('--model openai-compatible:<id> (@ai-sdk/openai-compatible)', () => {
  it('reads reasoning_content as reasoning and sends it back with the assistant message, the tool call and its result', async () => {
    const server = await serve([
      streamResponse({ reasoning: ['The file ', 'has it.'], text: 'Reading it.', toolCalls: [{ id: 'call_read', name: 'read', arguments: { path: 'notes.txt' } }] }),
      streamResponse({ reasoning: ['Done.'], text: 'It says the answer is 42.' }),
    ]);
    const result = await runReadingNotes(['--model', 'openai-compatible:deepseek-test', '--base-url', server.baseURL, '--api-key-env', 'DEEPSEEK_API_KEY'], {
      DEEPSEEK_API_KEY: 'ds-test-1',
      OPENAI_API_KEY: 'sk-must-not-be-sent',
    });

    expect(result).toMatchObject({ outcome: 'completed', text: 'It says the answer is 42.', stepCount: 2, toolCallCount: 1 });
    expect(reasoningOf(result)).toEqual([expect.objectContaining({ text: 'The file has it.' }), expect.objectContaining({ text: 'Done.' })]);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(['Bearer ds-test-1', 'Bearer ds-test-1']);
    const second = server.requests[1]!.body!;
    expect(second.model).toBe('deepseek-test');
    expect(second.messages.slice(1)).toEqual([
      expect.objectContaining({
        role: 'assistant',
        content: 'Reading it.',
        reasoning_content: 'The file has it.',
        tool_calls: [expect.objectContaining({ id: 'call_read', function: expect.objectContaining({ name: 'read', arguments: '{"path":"notes.txt"}' }) })],
      }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'call_read', content: expect.stringContaining('the answer is 42') }),
    ]);
  });
});
