import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { scriptedModel, scriptTurnSchema } from '../../src/test/index.js';

describe('scriptTurnSchema', () => {
  it('accepts a turn written in YAML', () => {
    const turn: unknown = parseYaml(`
text: Done.
reasoning: [Let me, " think"]
toolCalls:
  - name: writeFile
    input: { path: out.txt, content: hi }
  - name: readFile
    input: '{"path": '
finishReason: tool-calls
usage: { inputTokens: 10, outputTokens: 3 }
delayMs: 5
chunkDelayMs: 1
error: { status: 503, message: Unavailable, headers: { Retry-After: "1" }, after: 2 }
stall: false
endWithoutFinish: false
`);

    expect(scriptTurnSchema.safeParse(turn).success).toBe(true);
  });

  it('accepts an empty turn', () => {
    expect(scriptTurnSchema.safeParse({}).success).toBe(true);
  });

  it('rejects a misspelled field instead of ignoring it', () => {
    expect(scriptTurnSchema.safeParse({ toolcalls: [] }).success).toBe(false);
  });

  it('rejects an unknown finish reason and a negative error position', () => {
    expect(scriptTurnSchema.safeParse({ finishReason: 'done' }).success).toBe(false);
    expect(scriptTurnSchema.safeParse({ error: { message: 'x', after: -1 } }).success).toBe(false);
  });

  it('is checked when the model is built', () => {
    expect(() => scriptedModel([{ text: 42 } as never])).toThrow();
  });
});
