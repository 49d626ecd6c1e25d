import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { colorAllowed, createPalette } from '../../src/cli/palette.js';
import { redact, redactingSink } from '../../src/cli/redact.js';
import { createReporter, type OutputMode } from '../../src/cli/reporter.js';
import { createSpinner, noIndicator, type ActivityIndicator } from '../../src/cli/spinner.js';
import type { RunResult } from '../../src/core/result.js';
import { asJsonArray } from './support/scripts.js';
import { usageFrom } from '../../src/core/usage.js';

function capture() {
  let text = '';
  return { sink: { write: (chunk: string) => (text += chunk) }, get text() { return text; } };
}

const runId = 'r1';
const result: RunResult = {
  outcome: 'completed',
  text: 'Done.',
  messages: [],
  usage: usageFrom({ inputTokens: 10, outputTokens: 5 }),
  stepCount: 2,
  toolCallCount: 1,
  steps: [],
  toolCalls: [],
  toolResults: [],
  responseMessages: [],
  reasoning: [],
  reasoningText: undefined,
  warnings: [],
  durationMs: 1234,
};
const events: AgentEvent[] = [
  { type: 'run-start', runId, prompt: [{ role: 'user', content: 'hi' }] },
  { type: 'start-step', runId, step: 1 },
  { type: 'reasoning-delta', runId, step: 1, id: 'r', text: 'Let me look', attempt: 1 },
  { type: 'text-delta', runId, step: 1, id: 't', text: 'Looking', attempt: 1 },
  { type: 'text-delta', runId, step: 1, id: 't', text: ' now.', attempt: 1 },
  { type: 'message', runId, message: { role: 'assistant', content: [{ type: 'text', text: 'Looking now.' }] } },
  { type: 'tool-call', runId, step: 1, toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
  { type: 'tool-result', runId, step: 1, toolCallId: 'c1', toolName: 'read', output: '     1\thello\n     2\tworld', isError: false, durationMs: 3.4 },
  { type: 'tool-call', runId, step: 1, toolCallId: 'c2', toolName: 'read', input: { path: '../x' } },
  { type: 'tool-result', runId, step: 1, toolCallId: 'c2', toolName: 'read', output: "Path '../x' is outside the workspace root /ws", isError: true, durationMs: 1 },
  { type: 'finish-step', runId, step: 1, usage: result.usage, text: 'Looking now.', toolCalls: 2 },
  { type: 'start-step', runId, step: 2 },
  { type: 'text-delta', runId, step: 2, id: 't', text: 'Done.', attempt: 1 },
  { type: 'message', runId, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
  { type: 'finish-step', runId, step: 2, usage: result.usage, text: 'Done.', toolCalls: 0 },
  { type: 'run-end', runId, result },
];

function render(mode: OutputMode, { color = false, indicator = noIndicator }: { color?: boolean; indicator?: ActivityIndicator } = {}) {
  const stdout = capture();
  const stderr = capture();
  const reporter = createReporter(mode, { stdout: stdout.sink, stderr: stderr.sink, palette: createPalette(color), indicator });
  reporter.info('workspace: /ws');
  for (const event of events) reporter.event(event);
  reporter.finish(result);
  return { stdout: stdout.text, stderr: stderr.text };
}

/** A step whose first attempt breaks off mid-stream and is retried, then a good attempt. */
const retriedEvents: AgentEvent[] = [
  { type: 'run-start', runId, prompt: [{ role: 'user', content: 'hi' }] },
  { type: 'start-step', runId, step: 1 },
  { type: 'text-delta', runId, step: 1, id: 't', text: 'Partial ', attempt: 1 },
  { type: 'text-delta', runId, step: 1, id: 't', text: 'answer', attempt: 1 },
  { type: 'retry', runId, step: 1, attempt: 2, delayMs: 10, error: { kind: 'stream', message: 'connection closed' } },
  { type: 'text-delta', runId, step: 1, id: 't', text: 'Done.', attempt: 2 },
  { type: 'message', runId, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
  { type: 'finish-step', runId, step: 1, usage: result.usage, text: 'Done.', toolCalls: 0 },
  { type: 'run-end', runId, result: { ...result, stepCount: 1, toolCallCount: 0 } },
];

function renderRetried(stdoutIsTerminal: boolean) {
  const stdout = capture();
  const stderr = capture();
  const reporter = createReporter('human', { stdout: stdout.sink, stdoutIsTerminal, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator });
  for (const event of retriedEvents) reporter.event(event);
  return { stdout: stdout.text, stderr: stderr.text };
}

describe('human output of a retried attempt', () => {
  it('stdout that is not a terminal holds only the kept answer, never the discarded attempt', () => {
    expect(renderRetried(false).stdout).toBe('Done.\n');
  });

  it('on a terminal the discarded attempt streamed, and stderr says it was discarded', () => {
    const { stdout, stderr } = renderRetried(true);
    expect(stdout).toBe('Partial answer\nDone.\n');
    expect(stderr).toContain("(attempt 1's text above is discarded)");
  });

  it('a failed last attempt leaves nothing on a stdout that is not a terminal', () => {
    const stdout = capture();
    const reporter = createReporter('human', { stdout: stdout.sink, stderr: capture().sink, palette: createPalette(false), indicator: noIndicator });
    for (const event of retriedEvents.slice(0, 4)) reporter.event(event);
    reporter.event({ type: 'finish-step', runId, step: 1, usage: result.usage, text: '', toolCalls: 0 });
    reporter.event({ type: 'run-end', runId, result: { ...result, outcome: 'failed', text: '' } });
    expect(stdout.text).toBe('');
  });
});

describe('human output', () => {
  it('streams only the assistant text to stdout, one line per step', () => {
    expect(render('human').stdout).toBe('Looking now.\nDone.\n');
  });

  it('puts reasoning, tool activity and the summary on stderr', () => {
    expect(render('human').stderr).toBe(
      [
        'workspace: /ws',
        'Let me look',
        '→ read {"path":"a.txt"}',
        '✓ read (3 ms) 1\thello …',
        '→ read {"path":"../x"}',
        "✗ read (1 ms) Path '../x' is outside the workspace root /ws",
        'completed · 2 steps · 1 tool call · 15 tokens · 1.2 s',
        '',
      ].join('\n'),
    );
  });

  it('counts the tool calls a stopped run interrupted, and says one token, not one tokens', () => {
    const stderr = capture();
    const reporter = createReporter('human', { stdout: capture().sink, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator });
    reporter.event({ type: 'tool-call', runId, step: 1, toolCallId: 'c1', toolName: 'bash', input: { command: 'sleep 60' } });
    reporter.event({ type: 'tool-call', runId, step: 1, toolCallId: 'c2', toolName: 'read', input: { path: 'a.txt' } });
    reporter.event({ type: 'tool-result', runId, step: 1, toolCallId: 'c2', toolName: 'read', output: 'hello', isError: false, durationMs: 1 });
    reporter.finish({ ...result, outcome: 'aborted', stepCount: 1, usage: usageFrom({ inputTokens: 1, outputTokens: 0 }) });
    expect(stderr.text).toContain('aborted · 1 step · 1 tool call · 1 interrupted · 1 token · 1.2 s');
  });

  it('adds the error to the summary when the run has one', () => {
    const stderr = capture();
    const reporter = createReporter('human', { stdout: capture().sink, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator });
    reporter.finish({ ...result, outcome: 'failed', error: { kind: 'auth', message: 'Incorrect API key', status: 401 } });
    expect(stderr.text).toContain('failed · 2 steps');
    expect(stderr.text).toContain('auth: Incorrect API key');
  });

  it('colours stderr only when colour is on, and never stdout', () => {
    const plain = render('human');
    const coloured = render('human', { color: true });
    expect(plain.stderr).not.toContain('\u001b[');
    expect(coloured.stderr).toContain('\u001b[32mcompleted');
    expect(coloured.stdout).toBe(plain.stdout);
  });

  it('tells the activity indicator while the model has not answered and which tools run, and clears it before each log line', () => {
    const calls: string[] = [];
    const indicator: ActivityIndicator = {
      add: (id, label) => calls.push(`add ${id} ${label}`),
      remove: (id) => calls.push(`remove ${id}`),
      clear: () => calls.push('clear'),
      stop: () => calls.push('stop'),
    };
    render('human', { indicator });
    expect(calls.filter((call) => call !== 'clear')).toEqual([
      `add model ${runId} 1 waiting for the model`,
      `remove model ${runId} 1`,
      'add c1 read',
      'remove c1',
      'add c2 read',
      'remove c2',
      `add model ${runId} 2 waiting for the model`,
      `remove model ${runId} 2`,
      'stop',
    ]);
    expect(calls.filter((call) => call === 'clear').length).toBeGreaterThanOrEqual(5);
  });

  it('names a compaction and a retried call on the spinner, and waits for the model past the start of its stream', () => {
    const calls: string[] = [];
    const indicator: ActivityIndicator = { add: (id, label) => calls.push(`add ${id} ${label}`), remove: (id) => calls.push(`remove ${id}`), clear() {}, stop: () => calls.push('stop') };
    const reporter = createReporter('human', { stdout: capture().sink, stderr: capture().sink, palette: createPalette(false), indicator });
    const step = { runId, step: 1 };
    reporter.event({ type: 'compaction-start', ...step, reason: 'threshold', tokensBefore: 9000 });
    reporter.event({ type: 'compaction-end', ...step, reason: 'threshold', kind: 'summarised', tokensBefore: 9000, tokensAfter: 2000 });
    reporter.event({ type: 'start-step', ...step });
    reporter.event({ type: 'model-call-start', ...step, attempt: 1, warnings: [] });
    // The stream has begun, but the model has said nothing yet: still waiting.
    expect(calls.at(-1)).toBe(`add model ${runId} 1 waiting for the model`);
    reporter.event({ type: 'retry', ...step, attempt: 2, delayMs: 1000, error: { kind: 'server', message: 'overloaded' } });
    reporter.event({ type: 'model-call-start', ...step, attempt: 2, warnings: [] });
    reporter.event({ type: 'text-delta', ...step, id: 't', text: 'Hi', attempt: 2 });
    expect(calls).toEqual([
      `add compaction ${runId} compacting the context`,
      `remove compaction ${runId}`,
      `add model ${runId} 1 waiting for the model`,
      `remove model ${runId} 1`,
      `add retry ${runId} 1 retrying the model call (attempt 2)`,
      `remove retry ${runId} 1`,
      `add model ${runId} 1 waiting for the model (attempt 2)`,
      `remove model ${runId} 1`,
    ]);
  });

  it('stops the spinner when calls wait for approval, so it cannot draw over a question', () => {
    const stop = vi.fn();
    const reporter = createReporter('human', {
      stdout: capture().sink,
      stderr: capture().sink,
      palette: createPalette(false),
      indicator: { ...noIndicator, stop },
    });
    reporter.event({ type: 'approval-request', runId, step: 1, toolCallId: 'c1', toolName: 'write', input: {}, reason: 'policy' });
    expect(stop).toHaveBeenCalledOnce();
  });

  it('notes a retry on stderr with its wait and the error', () => {
    const stderr = capture();
    const reporter = createReporter('human', { stdout: capture().sink, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator });
    reporter.event({ type: 'retry', runId, step: 1, attempt: 2, delayMs: 1500, error: { kind: 'rate-limit', message: 'Slow down', status: 429 } });
    expect(stderr.text).toBe('retrying in 1.5 s (attempt 2) after rate-limit: Slow down\n');
  });
});

/** Two model calls of one run that report the same provider warning, then a second run that does again. */
const schemaWarning = { type: 'unsupported', feature: 'responseFormat', details: 'JSON response format schema is only supported with structuredOutputs' } as const;
const model = { provider: 'openai-compatible.chat', modelId: 'qwen' };
const warnedEvents: AgentEvent[] = [
  { type: 'model-call-start', runId: 'r1', step: 1, attempt: 1, model, warnings: [schemaWarning] },
  { type: 'model-call-start', runId: 'r1', step: 2, attempt: 1, model, warnings: [{ ...schemaWarning }, { type: 'other', message: 'the schema went into the instructions' }] },
  { type: 'model-call-start', runId: 'r1', step: 2, attempt: 2, model, warnings: [schemaWarning] },
  { type: 'model-call-start', runId: 'r2', step: 1, attempt: 1, model, warnings: [schemaWarning] },
];
const schemaLine = 'warning from openai-compatible.chat / qwen: The feature "responseFormat" is not supported. JSON response format schema is only supported with structuredOutputs';

describe("the provider's call warnings", () => {
  it.each(['human', 'json', 'events'] as const)('%s: each distinct one goes to stderr once per run, never to stdout', (mode) => {
    const stdout = capture();
    const stderr = capture();
    const reporter = createReporter(mode, { stdout: stdout.sink, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator });
    for (const event of warnedEvents) reporter.event(event);
    expect(stderr.text).toBe(`${schemaLine}\nwarning from openai-compatible.chat / qwen: the schema went into the instructions\n${schemaLine}\n`);
    expect(stdout.text).not.toContain('warning from');
  });

  it('are made safe for the terminal and go through the redacting sink', () => {
    const stderr = capture();
    const reporter = createReporter('json', { stdout: capture().sink, stderr: redactingSink(stderr.sink, ['sk-secret-123']), palette: createPalette(false), indicator: noIndicator });
    reporter.event({ type: 'model-call-start', runId, step: 1, attempt: 1, model, warnings: [{ type: 'other', message: 'key sk-secret-123 \u001b[2J rejected' }] });
    expect(stderr.text).toContain('rejected');
    expect(stderr.text).not.toContain('sk-secret-123');
    expect(stderr.text).not.toContain('\u001b[2J');
  });
});

describe('machine output', () => {
  it('--json writes only the final RunResult to stdout, as one JSON object', () => {
    const { stdout, stderr } = render('json');
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toEqual(result);
    expect(stderr).toBe('');
  });

  it('--events writes every event to stdout as NDJSON and nothing else', () => {
    const { stdout, stderr } = render('events');
    expect(JSON.parse(asJsonArray(stdout))).toEqual(events);
    expect(stderr).toBe('');
  });

  it('warnings still go to stderr', () => {
    const stderr = capture();
    createReporter('json', { stdout: capture().sink, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator }).warn('expectations failed');
    expect(stderr.text).toBe('expectations failed\n');
  });
});

describe('colour', () => {
  it('needs a terminal, no --no-color and no non-empty NO_COLOR', () => {
    expect(colorAllowed({ isTTY: true, noColorFlag: false, env: {} })).toBe(true);
    expect(colorAllowed({ isTTY: true, noColorFlag: false, env: { NO_COLOR: '' } })).toBe(true);
    expect(colorAllowed({ isTTY: false, noColorFlag: false, env: {} })).toBe(false);
    expect(colorAllowed({ isTTY: true, noColorFlag: true, env: {} })).toBe(false);
    expect(colorAllowed({ isTTY: true, noColorFlag: false, env: { NO_COLOR: '1' } })).toBe(false);
  });

  it('honours FORCE_COLOR as Node does: on even into a pipe and over NO_COLOR, off with 0, never over --no-color', () => {
    expect(colorAllowed({ isTTY: false, noColorFlag: false, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(colorAllowed({ isTTY: false, noColorFlag: false, env: { FORCE_COLOR: '', NO_COLOR: '1' } })).toBe(true);
    expect(colorAllowed({ isTTY: true, noColorFlag: false, env: { FORCE_COLOR: '0' } })).toBe(false);
    expect(colorAllowed({ isTTY: true, noColorFlag: true, env: { FORCE_COLOR: '1' } })).toBe(false);
    expect(createPalette(true).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});

describe('spinner', () => {
  afterEach(() => void vi.useRealTimers());

  it('appears only for tools running longer than its delay, names them, and erases itself when they finish', () => {
    vi.useFakeTimers();
    const out = capture();
    const spinner = createSpinner({ stream: out.sink, delayMs: 400, intervalMs: 100, now: () => Date.now() });
    spinner.add('a', 'read');
    vi.advanceTimersByTime(300);
    spinner.remove('a');
    expect(out.text).toBe('');

    spinner.add('b', 'bash');
    spinner.add('c', 'grep');
    vi.advanceTimersByTime(500);
    expect(out.text.startsWith('\r\u001b[2K')).toBe(true);
    expect(out.text.endsWith(' bash, grep · 0.5 s')).toBe(true);
    spinner.remove('b');
    spinner.remove('c');
    expect(out.text.endsWith('\r\u001b[2K')).toBe(true);
    const written = out.text.length;
    vi.advanceTimersByTime(1000);
    expect(out.text.length).toBe(written);
  });

  it('clear() erases a drawn spinner so a log line can be written', () => {
    vi.useFakeTimers();
    const out = capture();
    const spinner = createSpinner({ stream: out.sink, delayMs: 0, intervalMs: 50, now: () => Date.now() });
    spinner.add('a', 'bash');
    vi.advanceTimersByTime(50);
    spinner.clear();
    expect(out.text.endsWith('\r\u001b[2K')).toBe(true);
    spinner.stop();
  });
});

describe('redaction', () => {
  it('replaces a secret as written and as escaped inside JSON', () => {
    const secret = 'sk-"quoted"\\key';
    expect(redact(`key ${secret} and ${JSON.stringify(secret)}`, [secret])).toBe('key [redacted] and "[redacted]"');
  });

  it('redacts secrets added after the sink was made', () => {
    const out = capture();
    const secrets: string[] = [];
    const sink = redactingSink(out.sink, secrets);
    sink.write('before sk-test-123\n');
    secrets.push('sk-test-123');
    sink.write('after sk-test-123\n');
    expect(out.text).toBe('before sk-test-123\nafter [redacted]\n');
  });
});
