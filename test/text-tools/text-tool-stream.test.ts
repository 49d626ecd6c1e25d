import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { experimental_streamLanguageModelCall as streamLanguageModelCall, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callOptions, readAll, textDeltas, textOnlyModel } from './support.js';

const readCall = '<use_tool><tool_name>read</tool_name><arguments>{"path": "a.ts"}</arguments></use_tool>';

/** Splits text into chunks of `size` characters, so that tags straddle chunk boundaries. */
function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks;
}

async function streamParts(chunks: string[], finishReason?: 'stop' | 'length'): Promise<LanguageModelV4StreamPart[]> {
  const { model } = textOnlyModel([{ text: chunks, ...(finishReason ? { finishReason } : {}) }]);
  const { stream } = await model.doStream(callOptions());
  return readAll(stream);
}

/** The part types in order, a run of text deltas counted once (how many there are depends on the chunking). */
function partTypes(parts: readonly LanguageModelV4StreamPart[]): string[] {
  return parts.map((part) => part.type).filter((type, index, types) => !(type === 'text-delta' && types[index - 1] === 'text-delta'));
}

describe('textToolProtocol: streaming', () => {
  it('turns a block into tool-input-start/delta/end and a tool-call, with text before and after, and finishes with tool-calls', async () => {
    const parts = await streamParts(chunked(`Let me read it. ${readCall} Done.`, 7));
    expect(partTypes(parts)).toEqual([
      'stream-start',
      ...['text-start', 'text-delta', 'text-end'],
      ...['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call'],
      ...['text-start', 'text-delta', 'text-end'],
      'finish',
    ]);
    expect(textDeltas(parts).join('')).toBe('Let me read it. Done.');
    expect(parts.find((part) => part.type === 'tool-call')).toEqual({
      type: 'tool-call',
      toolCallId: 'text-call-1',
      toolName: 'read',
      input: '{"path": "a.ts"}',
    });
    expect(parts.find((part) => part.type === 'tool-input-start')).toMatchObject({ id: 'text-call-1', toolName: 'read' });
    expect(parts.find((part) => part.type === 'tool-input-delta')).toMatchObject({ id: 'text-call-1', delta: '{"path": "a.ts"}' });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'stop' } });
  });

  it('never sends part of a tag in a text delta, however the text is chunked', async () => {
    const answer = `a < b, <use_toolbox> is not a tag. ${readCall} ok`;
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const deltas = textDeltas(await streamParts(chunked(answer, size)));
      expect(deltas.join(''), `chunk size ${size}`).toBe('a < b, <use_toolbox> is not a tag. ok');
      const endsInPartialTag = (delta: string) => [...'<use_tool'].some((_, index) => delta.endsWith('<use_tool'.slice(0, index + 1)));
      expect(deltas.filter(endsInPartialTag), `chunk size ${size}`).toEqual([]);
    }
  });

  it('honours several blocks in one answer, in order, each with its own id', async () => {
    const ls = '<use_tool><tool_name>ls</tool_name><arguments>{}</arguments></use_tool>';
    const parts = await streamParts(chunked(`${readCall}\n${ls}`, 4));
    expect(parts.flatMap((part) => (part.type === 'tool-call' ? [[part.toolCallId, part.toolName]] : []))).toEqual([
      ['text-call-1', 'read'],
      ['text-call-2', 'ls'],
    ]);
  });

  it('leaves an answer without blocks as it was, finish reason included', async () => {
    const parts = await streamParts(['Just ', 'an answer.']);
    expect(textDeltas(parts).join('')).toBe('Just an answer.');
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } });
  });

  it('keeps a length finish, so that calls in a cut-off answer are not run as if complete', async () => {
    const parts = await streamParts([readCall], 'length');
    expect(parts.some((part) => part.type === 'tool-call')).toBe(true);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'length' } });
  });

  it('gives the AI SDK an invalid tool call when the arguments cannot be repaired', async () => {
    const { model } = textOnlyModel([['<use_tool><tool_name>read</tool_name><arguments>{{{</arguments></use_tool>']]);
    const read = tool({ inputSchema: z.object({ path: z.string() }) });
    const { stream } = await streamLanguageModelCall({ model, tools: { read }, prompt: 'read a.ts' });
    const calls = [];
    for await (const part of stream) if (part.type === 'tool-call') calls.push(part);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'read', invalid: true, input: '{{{' });
  });

  it('gives the AI SDK a valid tool call when the arguments were repaired', async () => {
    const { model } = textOnlyModel([["<use_tool><tool_name>read</tool_name><arguments>{path: 'a.ts'}</arguments></use_tool>"]]);
    const read = tool({ inputSchema: z.object({ path: z.string() }) });
    const { stream } = await streamLanguageModelCall({ model, tools: { read }, prompt: 'read a.ts' });
    const calls = [];
    for await (const part of stream) if (part.type === 'tool-call') calls.push(part);
    expect(calls).toEqual([expect.objectContaining({ toolName: 'read', input: { path: 'a.ts' } })]);
    expect(calls[0]).not.toHaveProperty('invalid', true);
  });

  it('does not parse blocks when the call offered no tools', async () => {
    const { model } = textOnlyModel([[readCall]]);
    const { stream } = await model.doStream(callOptions({ tools: undefined, toolChoice: undefined }));
    const parts = await readAll(stream);
    expect(textDeltas(parts).join('')).toBe(readCall);
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
  });
});
