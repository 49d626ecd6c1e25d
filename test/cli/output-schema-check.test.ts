import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOutputSchema } from '../../src/cli/output-schema.js';
import { outputSchemaCheck } from '../../src/cli/output-schema-check.js';

const backtracking = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] };
// Forty a's and a character that makes every way of splitting them fail: 2^40 tries.
const evilAnswer = { code: `${'a'.repeat(40)}!` };

describe('outputSchemaCheck', () => {
  it('gives the checked value of an answer that matches', async () => {
    await expect(outputSchemaCheck(backtracking)({ code: 'aaa' })).resolves.toEqual({ success: true, value: { code: 'aaa' } });
  });

  it("says why an answer does not match, in zod's words", async () => {
    const result = await outputSchemaCheck(backtracking)({ code: 'b' });
    expect(result.success).toBe(false);
    expect(!result.success && result.error.message).toMatch(/Invalid string: must match pattern/);
  });

  it('stops a pattern that backtracks catastrophically at the time limit: the answer does not match, and says why', async () => {
    const result = await outputSchemaCheck(backtracking, { timeLimitMs: 200 })(evilAnswer);
    expect(result.success).toBe(false);
    expect(!result.success && result.error.message).toMatch(/took more than 0\.2 s and was stopped: a "pattern" in the schema backtracks catastrophically/);
  });

  it('checks the next answer as before after a stopped one', async () => {
    const check = outputSchemaCheck(backtracking, { timeLimitMs: 200 });
    await check(evilAnswer);
    await expect(check({ code: 'aa' })).resolves.toEqual({ success: true, value: { code: 'aa' } });
  });
});

describe('loadOutputSchema', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('refuses, without hanging, a final answer on which a pattern of the schema backtracks catastrophically', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-output-schema-'));
    const file = path.join(dir, 'answer.schema.json');
    await writeFile(file, JSON.stringify(backtracking));
    const output = await loadOutputSchema(file, { timeLimitMs: 200 });
    const context = { response: { id: '', timestamp: new Date(), modelId: 'm' }, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, finishReason: 'stop' } as const;
    await expect(output.parseCompleteOutput({ text: JSON.stringify(evilAnswer) }, context as never)).rejects.toThrow(/did not match schema/);
    await expect(output.parseCompleteOutput({ text: '{"code":"aaaa"}' }, context as never)).resolves.toEqual({ code: 'aaaa' });
  });
});
