import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact } from '../src/secrets/redact.js';
import { redactSecrets, sanitizeContext } from '../src/inspect/sanitize.js';
import { TraceRecorder } from '../src/trace/trace-recorder.js';
import { emptyUsage } from '../src/core/usage.js';

const KEY = 'sk-test-SECRETSECRETSECRET123';

describe('redact', () => {
  it('a key too short to be secret is not redacted by substring, so JSON and text stay intact', () => {
    const json = JSON.stringify({ usage: { inputTokens: 10, outputTokens: 1 }, text: 'x marks the spot' });
    expect(redact(json, ['1'])).toBe(json);
    expect(redact(json, ['x'])).toBe(json);
    expect(JSON.parse(redact(json, ['1', 'x']))).toEqual(JSON.parse(json));
  });

  it('redacts a real key as written and inside a JSON string', () => {
    const secret = 'sk-"quoted"-key-123';
    expect(redact(`key ${secret} and ${JSON.stringify(secret)}`, [secret])).toBe('key [redacted] and "[redacted]"');
  });

  it('leaves unrelated text alone', () => {
    expect(redact('sk-test is the prefix of every test key', [KEY])).toBe('sk-test is the prefix of every test key');
  });

  it('a preview cut at any point inside the key leaks no piece of it longer than three characters', () => {
    for (let cut = 0; cut <= KEY.length; cut++) {
      const text = `the key is ${KEY} ok`;
      const at = 'the key is '.length + cut;
      const head = redact(`${text.slice(0, at)}…`, [KEY]);
      const tail = redact(`…${text.slice(at)}`, [KEY]);
      for (const piece of [head, tail]) {
        for (let length = 4; length <= KEY.length; length++) {
          for (let start = 0; start + length <= KEY.length; start++) expect(piece).not.toContain(KEY.slice(start, start + length));
        }
      }
    }
  });

  it('redact-then-cut in the inspector leaves no piece of the key, wherever the key sits around the cut', () => {
    fc.assert(
      fc.property(fc.integer({ min: 150, max: 230 }), (position) => {
        const text = `${'a'.repeat(position)}${KEY}${'b'.repeat(50)}`;
        const summary = sanitizeContext({ messages: [{ role: 'user', content: text }] }, [KEY]);
        const serialised = JSON.stringify(redactSecrets(summary, [KEY]));
        expect(serialised).not.toContain(KEY.slice(0, 8));
        expect(serialised).not.toContain(KEY.slice(-8));
      }),
      { numRuns: 80 },
    );
  });

  it('a tool output cut for the trace and then redacted leaves no piece of the key, wherever the key sits around the cut', () => {
    for (let offset = -KEY.length; offset <= 2; offset++) {
      const recorder = new TraceRecorder(() => undefined);
      recorder.event({ type: 'run-start', runId: 'r', prompt: [] });
      recorder.event({ type: 'start-step', runId: 'r', step: 1 });
      recorder.event({ type: 'tool-call', runId: 'r', step: 1, toolCallId: 'c', toolName: 't', input: {} });
      const output = `${'a'.repeat(2000 + offset)}${KEY}tail`;
      recorder.event({ type: 'tool-result', runId: 'r', step: 1, toolCallId: 'c', toolName: 't', output, isError: false, durationMs: 1 });
      const trace = recorder.event({ type: 'run-end', runId: 'r', result: { outcome: 'completed', text: '', messages: [], usage: emptyUsage, stepCount: 1, toolCallCount: 1, steps: [], toolCalls: [], toolResults: [], responseMessages: [], reasoning: [], reasoningText: undefined, warnings: [], durationMs: 1 } });
      const written = redact(JSON.stringify(trace), [KEY]);
      expect(written).not.toContain(KEY.slice(0, 4) + KEY.slice(4, 8));
      expect(written).not.toMatch(/sk-test-SECR/);
    }
  });
});
