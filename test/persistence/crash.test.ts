/**
 * Crash tests: a child process runs a five-step session with a file store and
 * is killed with SIGKILL at a chosen point; a new process resumes the session
 * and completes it. See test/fixtures/crash-agent.ts for the session.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/index.js';
import { decodeLog } from '../../src/persistence/jsonl.js';
import { replaySession } from '../../src/persistence/session-replay.js';
import { expectValidHistory } from '../support/history.js';
import { useTempDir } from '../support/temp-dir.js';

const FIXTURE = path.resolve('test/fixtures/crash-agent.ts');
const dir = useTempDir('loopchart-crash-');

interface ChildRun {
  lines: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
  waitForLine(predicate: (line: string) => boolean, timeoutMs?: number): Promise<void>;
}

function startChild(mode: 'start' | 'resume', approve: boolean): ChildRun {
  const args = ['--import', 'tsx', FIXTURE, dir(), 'crash', mode, path.join(dir(), 'executions'), ...(approve ? ['--approve'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    waiters.splice(0).forEach((wake) => wake());
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) lines.push(`STDERR ${stderr}`);
      waiters.splice(0).forEach((wake) => wake());
      resolve({ code, signal });
    }),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void exit.then(() => clearTimeout(timer));
  return {
    lines,
    exit,
    kill: () => child.kill('SIGKILL'),
    async waitForLine(predicate, timeoutMs = 20_000) {
      const started = Date.now();
      while (!lines.some(predicate)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the child exited before the line came:\n${lines.join('\n')}`);
        if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for a line:\n${lines.join('\n')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
  };
}

/** Runs the session until `killAt` has been seen `occurrence` times, SIGKILLs it, resumes it in a new process, and returns what the resumed run gives. */
async function crashAndResume(
  killAt: string,
  occurrence: number,
): Promise<{ result: RunResult; executions: string[]; killed: string[]; durable: string[] }> {
  // Approvals are answered before the kill only when the kill point comes after the approval.
  const first = startChild('start', killAt === 'running.retrying');
  await first.waitForLine(() => first.lines.filter((line) => line === `STATE ${killAt}`).length >= occurrence);
  first.kill();
  expect((await first.exit).signal).toBe('SIGKILL');
  const durable = toolResultsAtLastCheckpoint(readFileSync(path.join(dir(), 'crash.jsonl'), 'utf8'));

  const second = startChild('resume', true);
  await second.waitForLine((line) => line.startsWith('RESULT '));
  expect((await second.exit).code).toBe(0);
  const result = JSON.parse(second.lines.find((line) => line.startsWith('RESULT '))!.slice('RESULT '.length)) as RunResult;
  const file = path.join(dir(), 'executions');
  const executions = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  return { result, executions, killed: first.lines, durable };
}

/** The tool calls whose results were in the session at its last checkpoint when the process died. */
function toolResultsAtLastCheckpoint(text: string): string[] {
  const { messages } = replaySession(decodeLog(text, 'crash.jsonl').records);
  return messages.flatMap((message) => (message.role === 'tool' ? message.content.map((part) => (part as { toolCallId: string }).toolCallId) : []));
}

function expectOneOfEach(messages: ModelMessage[]): void {
  const texts = messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string' ? message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [],
  );
  expect(texts).toEqual(['Starting.', 'Now the slow part.', 'Deploying.', 'Checking.', 'All done.']);
  expect(messages.filter((message) => message.role === 'user')).toHaveLength(1);
}


describe('crash and resume', { timeout: 60_000 }, () => {
  it.each([
    ['running.llm.calling', 3, 'while calling the model'],
    ['running.llm.streaming', 2, 'while streaming'],
    ['running.toolExec', 2, 'during a tool call'],
    ['running.awaitingApproval', 1, 'while awaiting approval'],
    ['running.retrying', 1, 'during a retry wait'],
  ])('killed at %s (occurrence %i, %s), a new process completes the session with a valid history', async (killAt, occurrence) => {
    const { result, executions, killed, durable } = await crashAndResume(killAt, occurrence);

    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('All done.');
    expectOneOfEach(result.messages);
    await expectValidHistory(result.messages);
    const why = `killed process printed:\n${killed.join('\n')}\nexecutions:\n${executions.join('\n')}`;
    // A tool that had finished before the last checkpoint never runs again; one whose step re-ran may run twice.
    const runs = (id: string) => executions.filter((line) => line.endsWith(` ${id}`)).length;
    for (const id of durable) expect(runs(id), `${id} finished before the last checkpoint\n${why}`).toBe(1);
    for (const id of ['call-note', 'call-slow', 'call-deploy', 'call-check']) {
      expect(runs(id), why).toBeGreaterThanOrEqual(1);
      expect(runs(id), why).toBeLessThanOrEqual(2);
    }
    expect(durable.length, 'the kill points come after the first step').toBeGreaterThan(0);
  });
});
