import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { textToolProtocol } from '../../src/text-tools/index.js';

function generateResult(text: string): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

const read = tool({ description: 'Read a file', inputSchema: z.object({ path: z.string() }) });

describe('textToolProtocol: non-streaming calls', () => {
  it('turns the blocks of a generated answer into tool calls, in order, around the text', async () => {
    const inner = new MockLanguageModelV4({
      doGenerate: generateResult(
        'Reading both.\n<use_tool><tool_name>read</tool_name><arguments>{"path": "a.ts"}</arguments></use_tool>\n' +
          "<use_tool><tool_name>read</tool_name><arguments>{path: 'b.ts'}</arguments></use_tool>",
      ),
    });
    let id = 0;
    const model = wrapLanguageModel({ model: inner, middleware: textToolProtocol({ generateToolCallId: () => `g${++id}` }) });

    const result = await generateText({ model, tools: { read }, prompt: 'Read a.ts and b.ts' });

    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ['g1', 'read', { path: 'a.ts' }],
      ['g2', 'read', { path: 'b.ts' }],
    ]);
    expect(result.text).toBe('Reading both.\n');
    expect(inner.doGenerateCalls[0]!.tools).toBeUndefined();
    expect(JSON.stringify(inner.doGenerateCalls[0]!.prompt)).toContain('### read');
  });

  it('leaves a generated answer without blocks untouched', async () => {
    const inner = new MockLanguageModelV4({ doGenerate: generateResult('No tools needed: 4.') });
    const model = wrapLanguageModel({ model: inner, middleware: textToolProtocol() });

    const result = await generateText({ model, tools: { read }, prompt: '2 + 2?' });

    expect(result.finishReason).toBe('stop');
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toBe('No tools needed: 4.');
  });
});
