import { PassThrough } from 'node:stream';
import { Subject } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { terminalAsker } from '../../src/cli/approval-prompt.js';
import { answerApprovals, approvalMode, approvalOptions, PROMPT_APPROVAL_RULES, type ApprovalRequest } from '../../src/cli/approval.js';
import type { AgentEvent } from '../../src/core/events.js';

const request = (toolCallId: string, toolName = 'write', reason: 'policy' | 'doom-loop' = 'policy'): ApprovalRequest => ({
  type: 'approval-request',
  runId: 'r',
  step: 1,
  toolCallId,
  toolName,
  input: { path: 'a.txt' },
  reason,
});

function fakeAgent() {
  const events$ = new Subject<AgentEvent>();
  const answers: string[] = [];
  return {
    agent: {
      events$: events$.asObservable(),
      approve: (id: string) => void answers.push(`approve ${id}`),
      deny: (id: string, reason?: string) => void answers.push(`deny ${id}: ${reason}`),
    },
    emit: (event: AgentEvent) => events$.next(event),
    answers,
  };
}

/** Lets pending promise callbacks and immediate timers run (no fixed delay). */
const settle = () => new Promise((resolve) => setImmediate(resolve));
/** Waits until `count` answers were given, however busy the machine is. */
const answered = (answers: string[], count: number) => vi.waitFor(() => expect(answers).toHaveLength(count), { timeout: 10_000, interval: 5 });

describe('approval mode', () => {
  it('--yes approves all; otherwise a terminal asks and anything else denies', () => {
    expect(approvalMode({ yes: true, interactive: false })).toBe('approve-all');
    expect(approvalMode({ yes: true, interactive: true })).toBe('approve-all');
    expect(approvalMode({ yes: false, interactive: true })).toBe('ask');
    expect(approvalMode({ yes: false, interactive: false })).toBe('deny');
  });

  it('a prompt run asks before the tools that change files or run commands', () => {
    expect(approvalOptions(PROMPT_APPROVAL_RULES, undefined)).toEqual({ approval: { ask: ['write', 'edit', 'bash'] } });
    expect(approvalOptions(undefined, 'stop')).toEqual({ onDeny: 'stop' });
  });
});

describe('answerApprovals', () => {
  it('with --yes approves every request and notes it for people', async () => {
    const { agent, emit, answers } = fakeAgent();
    const info = vi.fn();
    answerApprovals({ agent, mode: 'approve-all', info, warn: () => {} });
    emit(request('a'));
    emit(request('b', 'bash', 'doom-loop'));
    await answered(answers, 2);
    expect(answers).toEqual(['approve a', 'approve b']);
    expect(info).toHaveBeenCalledWith('approved by --yes: write {"path":"a.txt"}');
    expect(info).toHaveBeenCalledWith('approved by --yes: bash {"path":"a.txt"} (repeated call: doom loop)');
  });

  it('without a terminal denies, telling the model and the user that --yes would approve', async () => {
    const { agent, emit, answers } = fakeAgent();
    const warn = vi.fn();
    answerApprovals({ agent, mode: 'deny', info: () => {}, warn });
    emit(request('a'));
    await answered(answers, 1);
    expect(answers).toEqual(['deny a: no one could approve it (loopchart runs without a terminal and without --yes)']);
    expect(warn).toHaveBeenCalledWith(
      'denied: write {"path":"a.txt"}: it needs approval and there is no terminal to ask; run with --yes to approve such calls',
    );
  });

  it('on a terminal asks about one request at a time and answers as the user said', async () => {
    const { agent, emit, answers } = fakeAgent();
    const asked: string[] = [];
    let open = 0;
    const askUser = async (req: ApprovalRequest) => {
      open++;
      expect(open).toBe(1);
      asked.push(req.toolCallId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      open--;
      return req.toolCallId === 'yes';
    };
    answerApprovals({ agent, mode: 'ask', askUser, info: () => {}, warn: () => {} });
    emit(request('yes'));
    emit(request('no'));
    await answered(answers, 2);
    expect(asked).toEqual(['yes', 'no']);
    expect(answers).toEqual(['approve yes', 'deny no: the user declined it']);
  });

  it('stops asking and answering once stopped (the run ended)', async () => {
    const { agent, emit, answers } = fakeAgent();
    let signal: AbortSignal | undefined;
    const stop = answerApprovals({
      agent,
      mode: 'ask',
      askUser: (_req, abort) => {
        signal = abort;
        return new Promise((_resolve, reject) => abort.addEventListener('abort', () => reject(new Error('aborted'))));
      },
      info: () => {},
      warn: () => {},
    });
    emit(request('a'));
    await vi.waitFor(() => expect(signal).toBeDefined(), { timeout: 10_000, interval: 5 });
    stop();
    await settle();
    expect(signal?.aborted).toBe(true);
    expect(answers).toEqual([]);
  });

  it('ignores every other event', async () => {
    const { agent, emit, answers } = fakeAgent();
    answerApprovals({ agent, mode: 'approve-all', info: () => {}, warn: () => {} });
    emit({ type: 'start-step', runId: 'r', step: 1 });
    await settle();
    expect(answers).toEqual([]);
  });
});

describe('terminal question', () => {
  async function ask(typed: string) {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    const answer = terminalAsker({ input, output, onInterrupt: () => {} })(request('a'), new AbortController().signal);
    input.write(typed);
    return { approved: await answer, shown };
  }

  it('shows the call and approves only for y or yes', async () => {
    const yes = await ask('y\n');
    expect(yes).toEqual({ approved: true, shown: 'Allow write {"path":"a.txt"}? [y/N] ' });
    expect((await ask('YES\n')).approved).toBe(true);
    expect((await ask('\n')).approved).toBe(false);
    expect((await ask('n\n')).approved).toBe(false);
    expect((await ask('sure\n')).approved).toBe(false);
  });

  it('denies when the terminal input ends while the question waits (Ctrl+D, a closed terminal), and every later question at once', async () => {
    const input = new PassThrough();
    const output = new PassThrough().resume();
    const asker = terminalAsker({ input, output, onInterrupt: () => {} });
    const first = asker(request('a'), new AbortController().signal);
    input.end();
    await expect(first).resolves.toBe(false);
    await expect(asker(request('b'), new AbortController().signal)).resolves.toBe(false);
  });

  it('gives up the question when the run ends', async () => {
    const controller = new AbortController();
    const answer = terminalAsker({ input: new PassThrough(), output: new PassThrough(), onInterrupt: () => {} })(request('a'), controller.signal);
    controller.abort();
    await expect(answer).rejects.toThrow();
  });
});
