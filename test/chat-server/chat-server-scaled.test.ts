/**
 * The scaled-out chat (examples/chat-server/scaled): two worker processes and
 * a web process on a throwaway Postgres and Redis, the same endpoints as the
 * one-process server. A chat streams from whichever worker runs it, the
 * approval reaches the turn that waits for it, and a second message continues
 * the session's history on any worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScaledChatWeb } from '../../examples/chat-server/scaled/web.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { redisServerBinary, startRedis, type RedisServer } from '../support/redis-server.js';
import { UIMessageStreamReader } from './ui-message-stream-reader.js';

const WORKER = path.resolve('examples/chat-server/scaled/worker.ts');
const postgresBin = postgresBinary();
const redisBin = redisServerBinary();

describe.skipIf(postgresBin === undefined || redisBin === undefined)('the chat scaled out over workers', () => {
  let postgres: PostgresServer;
  let redis: RedisServer;
  let web: Awaited<ReturnType<typeof startScaledChatWeb>>;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    postgres = await startPostgres(postgresBin!);
    redis = await startRedis(redisBin!);
    const databaseUrl = await postgres.createDatabase('chat');
    await DBOS.migrate(databaseUrl);
    const ready = ['worker-1', 'worker-2'].map((id) => {
      const child = spawn(process.execPath, ['--import', 'tsx', WORKER, databaseUrl, redis.url, id], { stdio: ['ignore', 'pipe', 'inherit'] });
      workers.push(child);
      return new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes(`worker ${id} ready`) && resolve());
        child.once('exit', (code) => reject(new Error(`${id} exited (${code}) before it was ready`)));
      });
    });
    await Promise.all(ready);
    web = await startScaledChatWeb({ databaseUrl, redisUrl: redis.url });
  }, 120_000);

  afterAll(async () => {
    await web?.close();
    const running = workers.filter((worker) => worker.exitCode === null && worker.signalCode === null);
    await Promise.all(running.map((worker) => new Promise((resolve) => (worker.once('exit', resolve), worker.kill('SIGKILL')))));
    await redis?.stop();
    await postgres?.stop();
  }, 60_000);

  const post = (pathname: string, body: unknown) =>
    fetch(`${web.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const userMessage = (text: string) => ({ id: `user-${text}`, role: 'user', parts: [{ type: 'text', text }] });

  it('serves the same page', async () => {
    expect(await (await fetch(`${web.url}/`)).text()).toContain('<title>loopchart chat</title>');
  });

  it('streams a run from a worker, waits for approval through the web node, and finishes', async () => {
    const stream = new UIMessageStreamReader(await post('/api/chat', { sessionId: 'scaled-1', messages: [userMessage('Water the plants on Friday')] }));
    const request = await stream.until('tool-approval-request');
    expect(request).toMatchObject({ toolCallId: 'call-2' });
    const session = await (await fetch(`${web.url}/api/sessions/scaled-1`)).json();
    expect(session).toMatchObject({ isRunning: true, pendingApprovals: ['call-2'] });

    const approval = await post('/api/sessions/scaled-1/approve', { toolCallId: 'call-2' });
    expect(await approval.json()).toEqual({ sessionId: 'scaled-1', toolCallId: 'call-2', answer: 'approved', pendingApprovals: [] });
    const chunks = await stream.toEnd();
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', messageMetadata: { outcome: 'completed' } });
    expect(stream.text()).toContain('Saved “Water the plants on Friday”. Your notebook now holds 1 note.');
  }, 60_000);

  it('continues the session on any worker, with the notes every worker shares', async () => {
    const first = new UIMessageStreamReader(await post('/api/chat', { sessionId: 'scaled-1', messages: [userMessage('Buy milk')] }));
    await first.until('tool-approval-request');
    expect(first.text()).toContain('You have 1 note so far.');
    expect((await post('/api/sessions/scaled-1/deny', { toolCallId: 'call-5', reason: 'not now' })).status).toBe(200);
    await first.toEnd();
    expect(first.text()).toContain('All right, I did not save the note.');
    const session = await (await fetch(`${web.url}/api/sessions/scaled-1`)).json();
    expect(session.messages.filter((message: { role: string }) => message.role === 'user')).toHaveLength(2);
    expect((await post('/api/sessions/scaled-1/approve', { toolCallId: 'call-5' })).status).toBe(404);
  }, 60_000);
});
