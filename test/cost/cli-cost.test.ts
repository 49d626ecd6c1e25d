/** The CLI's summary and --json show what a run cost when the model's price is known. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { streamResponse, useOpenAIServers, type OpenAIServer } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from '../cli/support/cli-process.js';
import { tempDir } from '../cli/support/scripts.js';

beforeAll(() => buildCli(), 60_000);
const serveScripted = useOpenAIServers();

async function serve(model: string): Promise<OpenAIServer> {
  return serveScripted([streamResponse({ text: 'Hello.', model, usage: { prompt_tokens: 1000, completion_tokens: 100 } })]);
}

const env = cleanEnv({ LOOPCHART_TEST_KEY: 'sk-test-cost-1b2c' });
const run = async (server: OpenAIServer, modelId: string, ...flags: string[]) =>
  runCli(['run', 'Say hello.', '--model', `openai:${modelId}`, '--base-url', server.baseURL, '--api-key-env', 'LOOPCHART_TEST_KEY', '--cwd', await tempDir(), '--tools', 'read', ...flags], { env });

// gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
const gpt4oMiniCost = 1000 * 0.15e-6 + 100 * 0.6e-6;

describe('loopchart run shows the cost of a priced model', () => {
  it('the summary ends with the run’s cost in dollars', async () => {
    const { code, stderr } = await run(await serve('gpt-4o-mini'), 'gpt-4o-mini');

    expect(code).toBe(0);
    expect(stderr).toMatch(/completed · 1 step · 0 tool calls · 1100 tokens · \$0\.00021 · \d+\.\d s/);
  });

  it('--json has the cost beside the usage, and --events has each step’s', async () => {
    const json = await run(await serve('gpt-4o-mini'), 'gpt-4o-mini', '--json');
    const events = await run(await serve('gpt-4o-mini'), 'gpt-4o-mini', '--events');

    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.usage).toMatchObject({ inputTokens: 1000, outputTokens: 100 });
    expect(result.cost.currency).toBe('USD');
    expect(result.cost.total).toBeCloseTo(gpt4oMiniCost, 12);
    const parsed = events.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; cost?: { total: number } });
    const finishStep = parsed.find((event) => event.type === 'finish-step');
    expect(finishStep?.cost?.total).toBeCloseTo(gpt4oMiniCost, 12);
  });

  it('a model without a price has no cost in the summary or --json (absent, not 0)', async () => {
    const human = await run(await serve('gpt-test'), 'gpt-test');
    const json = await run(await serve('gpt-test'), 'gpt-test', '--json');

    expect(human.stderr).toMatch(/completed · 1 step · 0 tool calls · 1100 tokens · \d+\.\d s/);
    expect(human.stderr).not.toContain('$');
    expect(JSON.parse(json.stdout)).not.toHaveProperty('cost');
  });
});

describe('loopchart run --max-cost', () => {
  // Each step: 1,000 input and 100 output tokens of gpt-4o-mini, $0.00021.
  const toolStep = (index: number) => streamResponse({ toolCalls: [{ name: 'read', arguments: { path: `missing-${index}.txt` } }], model: 'gpt-4o-mini', usage: { prompt_tokens: 1000, completion_tokens: 100 } });

  it('ends the run at the step boundary after its cost goes over the budget, and says so', async () => {
    const server = await serveScripted(Array.from({ length: 8 }, (_, index) => toolStep(index)));
    const { code, stderr, stdout } = await runCli(
      ['run', 'Read files.', '--model', 'openai:gpt-4o-mini', '--base-url', server.baseURL, '--api-key-env', 'LOOPCHART_TEST_KEY', '--cwd', await tempDir(), '--tools', 'read', '--max-cost', '0.0005', '--json'],
      { env },
    );

    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { outcome: string; steps: number; cost: { total: number } };
    // $0.00042 after two steps is within the budget, $0.00063 after three is over it.
    expect(result).toMatchObject({ outcome: 'completed', stepCount: 3 });
    expect(result.cost.total).toBeCloseTo(3 * gpt4oMiniCost, 12);
    expect(stderr).toContain('stopped by --max-cost: the run cost $0.00063, over the budget of $0.0005');
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a budget on a model without a price (exit 2): it could never stop the run', async () => {
    const server = await serve('gpt-test');
    const { code, stderr } = await run(server, 'gpt-test', '--max-cost', '1');

    expect(code).toBe(2);
    expect(stderr).toContain('--max-cost needs a model with a known price, and gpt-test (provider openai.chat) has none in the price catalogue');
    expect(server.requests).toHaveLength(0);
  });

  it("takes the budget from a script's maxCost too, and refuses it with the scripted model, which has no price", async () => {
    const dir = await tempDir();
    const script = path.join(dir, 'budget.json');
    await writeFile(script, JSON.stringify({ prompt: 'Read.', maxCost: 0.5, turns: [{ text: 'ok' }] }));
    const { code, stderr } = await runCli(['run', script], { env });

    expect(code).toBe(2);
    expect(stderr).toContain("the script's maxCost needs a model with a known price, and scripted (provider scripted) has none");
  });
});

