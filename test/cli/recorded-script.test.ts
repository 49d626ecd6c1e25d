import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recordedScript } from '../../src/cli/recorded-script.js';
import { parseScript } from '../../src/cli/script.js';

const recordedAt = new Date('2026-01-02T03:04:05.000Z');

describe('recordedScript', () => {
  it('writes a valid script: a header comment, the prompt, the setup, the turns and the expected outcome', () => {
    const text = recordedScript({
      prompts: ['Fix it'],
      tools: ['read', 'edit'],
      maxSteps: 5,
      approval: { ask: ['write', { tool: 'edit', when: () => true }], default: 'allow' },
      turns: [{ text: ['Done', '.'], finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } }],
      outcome: 'completed',
      model: 'openai:gpt-test',
      recordedAt,
    });
    expect(text.split('\n').slice(0, 3)).toEqual([
      '# Recorded by loopchart run --record on 2026-01-02T03:04:05.000Z, answered by openai:gpt-test.',
      '# Replay it offline, without the model: loopchart run <this file>',
      "# (the workspace is not recorded, only a script's files: give --cwd to run the tools on the same files).",
    ]);
    expect(parseScript(text)).toEqual({
      prompt: 'Fix it',
      tools: ['read', 'edit'],
      maxSteps: 5,
      approval: { ask: ['write', 'edit'], default: 'allow' },
      turns: [{ text: ['Done', '.'], finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } }],
      expect: { outcome: 'completed' },
    });
  });

  it('keeps a script’s prompts, instructions, limits, rules and files, and leaves out the expectation when asked', () => {
    const text = recordedScript({
      prompts: ['one', 'two'],
      script: {
        prompt: ['one', 'two'],
        instructions: 'Be brief.',
        toolExecution: 'sequential',
        doomLoop: { threshold: 2 },
        onDeny: 'stop',
        files: { 'a.txt': 'a' },
        turns: [{ text: 'scripted' }],
        expect: { textContains: 'x' },
      },
      tools: ['ls'],
      turns: [{ text: ['recorded'] }, { text: ['again'] }],
      model: 'the scripted model of s.yaml',
      recordedAt,
    });
    expect(parse(text)).toEqual({
      prompt: ['one', 'two'],
      instructions: 'Be brief.',
      tools: ['ls'],
      toolExecution: 'sequential',
      doomLoop: { threshold: 2 },
      onDeny: 'stop',
      files: { 'a.txt': 'a' },
      turns: [{ text: ['recorded'] }, { text: ['again'] }],
    });
  });

  it('refuses to write a script without turns', () => {
    expect(() => recordedScript({ prompts: ['hi'], tools: [], turns: [], model: 'm', recordedAt })).toThrow('nothing to record: the model was never called');
  });
});
