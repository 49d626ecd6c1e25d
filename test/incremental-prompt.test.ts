import type { ModelMessage } from 'ai';
import * as internal from 'ai/internal';
import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { convertPromptIncrementally } from '../src/model-call/incremental-prompt.js';
import { MessageHistory, type MessageList } from '../src/core/message-history.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const options = { supportedUrls: {}, download: undefined, abortSignal: undefined, provider: 'mock' };
const full = (instructions: string | undefined, messages: ModelMessage[]) =>
  internal.convertToLanguageModelPrompt({ ...options, prompt: { instructions, messages } });

const call = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read', input: { path: id } }] });
const result = (id: string): ModelMessage => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read', output: { type: 'text', value: `file ${id}` } }] });

describe('convertPromptIncrementally', () => {
  it('gives what the AI SDK gives for the whole history, step after step, converting only what was added', async () => {
    let history: ModelMessage[] = [{ role: 'user', content: 'read a and b' }];
    for (const id of ['a', 'b', 'c']) {
      expect(await convertPromptIncrementally('Be brief.', history, options)).toEqual(await full('Be brief.', history));
      history = [...history, call(id), result(id)];
    }
  });

  it('converts only the messages added since the last call', async () => {
    const converted: number[] = [];
    const counting: typeof internal.convertToLanguageModelPrompt = (args) => (converted.push(args.prompt.messages.length), internal.convertToLanguageModelPrompt(args));
    const history: ModelMessage[] = Array.from({ length: 100 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `m${index}` }));
    await convertPromptIncrementally(undefined, history, options, { ...internal, convertToLanguageModelPrompt: counting });
    const longer = [...history, call('a'), result('a')];
    expect(await convertPromptIncrementally(undefined, longer, options, { ...internal, convertToLanguageModelPrompt: counting })).toEqual(await full(undefined, longer));
    expect(converted).toEqual([100, 2]);
  });

  it('converts the whole history again when its beginning changed (a compaction made new messages)', async () => {
    const history: ModelMessage[] = [{ role: 'user', content: 'first' }, call('a'), result('a'), { role: 'user', content: 'second' }];
    await convertPromptIncrementally(undefined, history, options);
    const compacted: ModelMessage[] = [{ role: 'user', content: 'Summary: read a.' }, ...history.slice(3)];
    expect(await convertPromptIncrementally(undefined, compacted, options)).toEqual(await full(undefined, compacted));
  });

  it('never merges a new tool message into one converted earlier, as the AI SDK merges consecutive tool messages', async () => {
    const history: ModelMessage[] = [{ role: 'user', content: 'go' }, call('a'), result('a')];
    await convertPromptIncrementally(undefined, history, options);
    const more = [...history, result('z')];
    expect(await convertPromptIncrementally(undefined, more, options)).toEqual(await full(undefined, more));
  });

  it('does not reuse a conversion made for another provider', async () => {
    const history: ModelMessage[] = [{ role: 'user', content: 'hi' }];
    await convertPromptIncrementally(undefined, history, options);
    const other = { ...options, provider: 'other' };
    const longer = [...history, { role: 'assistant', content: 'hello' } as ModelMessage];
    expect(await convertPromptIncrementally(undefined, longer, other)).toEqual(await internal.convertToLanguageModelPrompt({ ...other, prompt: { instructions: undefined, messages: longer } }));
  });

  it('refuses a system message added to a history whose beginning was converted before, as standardizePrompt does', async () => {
    const history: ModelMessage[] = [{ role: 'user', content: 'hi' }];
    await convertPromptIncrementally(undefined, history, options);
    const withSystem: ModelMessage[] = [...history, { role: 'system', content: 'obey' }];
    await expect(convertPromptIncrementally(undefined, withSystem, options)).rejects.toThrow(/System messages are not allowed/);
  });

  it('hands out a prompt of its own each call: one a caller kept or changed is not the next call\'s', async () => {
    const first: ModelMessage[] = [{ role: 'user', content: 'go' }];
    const firstPrompt = await convertPromptIncrementally(undefined, first, options);
    const second = MessageHistory.from(first).append(call('a'), result('a'));
    const secondPrompt = await convertPromptIncrementally(undefined, second, options);
    expect(firstPrompt).toHaveLength(1);
    secondPrompt.push({ role: 'user', content: [{ type: 'text', text: 'added by a middleware' }] });
    const third = MessageHistory.from(second).append(call('b'), result('b'));
    expect(await convertPromptIncrementally(undefined, third, options)).toEqual(await full(undefined, third.slice()));
    // A branch from the second history, after the third went on from it, gets its own conversion.
    const branch = MessageHistory.from(second).append({ role: 'user', content: 'something else' });
    expect(await convertPromptIncrementally(undefined, branch, options)).toEqual(await full(undefined, branch.slice()));
  });

  it('keeps no earlier history once a longer one was converted: a long session holds one conversion, not a copy per call', async () => {
    let history: MessageList = [{ role: 'user', content: 'go' }];
    await convertPromptIncrementally(undefined, history, options);
    const first = new WeakRef(history);
    for (const id of ['a', 'b', 'c']) {
      history = MessageHistory.from(history).append(call(id), result(id));
      await convertPromptIncrementally(undefined, history, options);
    }
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    expect(first.deref()).toBeUndefined();
    expect(await convertPromptIncrementally(undefined, history, options)).toEqual(await full(undefined, history.slice()));
  });

  it('refuses an empty history, as standardizePrompt does', async () => {
    await expect(convertPromptIncrementally('Be brief.', [], options)).rejects.toThrow(/messages must not be empty/);
  });
});
