/**
 * A session worker process for the soak: DBOS Transact and pgStore on Postgres, events to Redis,
 * heartbeats and recovery of dead workers — the setup of docs/scale-out.md, reaching Postgres and
 * Redis through the soak's proxies. The model is a deterministic function of the history, so any
 * worker gives a re-run step the same answer: it reads its plan from the last `soak …` user
 * message (see `planText`): that many tool calls, the `ask`th needing approval, then a text.
 *
 * What the soak checks afterwards, this process writes to `<dir>/observations-<executorID>.jsonl`
 * as it happens (synchronous appends, so nothing is lost when it is killed): each model call,
 * each tool start and each tool effect — the effect is written when the tool's work is done, just
 * before it returns, so a tool aborted or killed mid-work has none.
 *
 * Usage (as `WorkerFleet` starts it): tsx test/soak/soak-worker.ts <databaseUrl> <dir> <executorID>,
 * with LOOPCHART_TEST_REDIS_URL, LOOPCHART_SOAK_LEASE_TTL_MS, LOOPCHART_SOAK_HEARTBEAT_MS,
 * LOOPCHART_SOAK_DEAD_AFTER_MS and LOOPCHART_QUEUE_POLL_MS in the environment.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import pg from 'pg';
import { createClient } from 'redis';
import { z } from 'zod';
import { abortableDelay, pullStream } from '../../src/test/pull-stream.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import { redisEventPublisher } from '../../src/redis/index.js';
import { pgControlChannel, registerSessionQueue, registerSessionWorkflows, sessionWorkerConfig, SESSION_APPLICATION_VERSION, startWorkerRecovery } from '../../src/dbos/index.js';
import { parsePlan, sessionOfTag, toolCallIdOf } from './soak-plan.js';
import type { WorkerObservationBody } from './soak-observations.js';

const [databaseUrl, dir, executorID] = process.argv.slice(2) as [string, string, string];
const redisUrl = process.env.LOOPCHART_TEST_REDIS_URL;
if (!databaseUrl || !dir || !executorID || !redisUrl) throw new Error('usage: soak-worker.ts <databaseUrl> <dir> <executorID>, with LOOPCHART_TEST_REDIS_URL set');
const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${process.env[name]}`);
  return value;
};
const leaseTtlMs = numberFromEnv('LOOPCHART_SOAK_LEASE_TTL_MS', 5_000);
const heartbeatMs = numberFromEnv('LOOPCHART_SOAK_HEARTBEAT_MS', 500);
const deadAfterMs = numberFromEnv('LOOPCHART_SOAK_DEAD_AFTER_MS', 8_000);

const observations = path.join(dir, `observations-${executorID}.jsonl`);
const observe = (observation: WorkerObservationBody) =>
  appendFileSync(observations, `${JSON.stringify({ ...observation, worker: executorID, pid: process.pid, t: Date.now() })}\n`);

/** The lease epoch of this process's latest event for each session, and for each tool call. */
const sessionEpochs = new Map<string, number>();
const callEpochs = new Map<string, number>();
/** Tool executions in progress in this process, by session. */
const toolsRunning = new Map<string, number>();

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: string }>).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

/** The plan of the latest `soak …` user message, and how many tool results came after it. */
function currentPlan(prompt: LanguageModelV4Prompt | ModelMessage[]) {
  let done = 0;
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role === 'tool') done += (message.content as Array<{ type: string }>).filter((part) => part.type === 'tool-result').length;
    if (message.role !== 'user') continue;
    const plan = parsePlan(textOf(message.content));
    if (plan) return { plan, done };
  }
  return undefined;
}

/** The session of the history: its first user message's tag. */
function sessionOf(messages: LanguageModelV4Prompt | ModelMessage[]): string {
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const plan = parsePlan(textOf(message.content));
    if (plan) return sessionOfTag(plan.tag);
  }
  return 'unknown';
}

const usage = { inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: undefined, reasoning: undefined } };

const model = new MockLanguageModelV4({
  doStream: async (options: LanguageModelV4CallOptions) => {
    const found = currentPlan(options.prompt);
    const sessionId = sessionOf(options.prompt);
    observe({ kind: 'model-call', session: sessionId, epoch: sessionEpochs.get(sessionId), tag: found?.plan.tag, done: found?.done });
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }];
    const calls = found && found.done < found.plan.tools;
    const words = !found ? ['no ', 'plan.'] : calls ? ['Working ', `on ${found.plan.tag} `, `step ${found.done + 1}.`] : ['Done ', `with ${found.plan.tag}`, '.'];
    for (const delta of words) parts.push({ type: 'text-delta', id: 't', delta });
    parts.push({ type: 'text-end', id: 't' });
    if (found && calls) {
      const n = found.done + 1;
      parts.push({ type: 'tool-call', toolCallId: toolCallIdOf(found.plan.tag, n), toolName: found.plan.ask === n ? 'guarded' : 'effect', input: JSON.stringify({ n, ms: found.plan.toolMs }) });
    }
    const unified = calls ? 'tool-calls' : 'stop';
    parts.push({ type: 'finish', finishReason: { unified, raw: unified }, usage });
    let next = 0;
    return {
      // A little time between chunks, so that kills, pauses and aborts land mid-stream too.
      stream: pullStream(
        async () => {
          if (next > 0 && next < parts.length) await abortableDelay(25, options.abortSignal);
          return parts[next++];
        },
        { signal: options.abortSignal },
      ),
    };
  },
});

const effectTool = (name: string) =>
  tool({
    description: `${name}: works for ms milliseconds, then has its effect`,
    // `n` (the call's place in the run) keeps calls apart, so that no run looks like a doom loop.
    inputSchema: z.object({ n: z.number().int().min(1), ms: z.number().int().min(0) }),
    execute: async ({ ms }, { toolCallId, messages, abortSignal }) => {
      const sessionId = sessionOf(messages);
      const epoch = Math.max(callEpochs.get(`${sessionId} ${toolCallId}`) ?? 0, sessionEpochs.get(sessionId) ?? 0) || undefined;
      const alongside = toolsRunning.get(sessionId) ?? 0;
      toolsRunning.set(sessionId, alongside + 1);
      const started = Date.now();
      observe({ kind: 'tool-start', session: sessionId, toolCallId, epoch, alongside });
      try {
        await abortableDelay(ms, abortSignal);
        observe({ kind: 'effect', session: sessionId, toolCallId, epoch, started });
        return `${name} ${toolCallId} done`;
      } finally {
        toolsRunning.set(sessionId, (toolsRunning.get(sessionId) ?? 1) - 1);
      }
    },
  });

const redis = createClient({ url: redisUrl });
redis.on('error', () => undefined);
await redis.connect();
const events = redisEventPublisher({ redis });

const pool = new pg.Pool({ connectionString: databaseUrl, max: 8, connectionTimeoutMillis: 5_000 });
pool.on('error', () => undefined);
const control = pgControlChannel(pool);
registerSessionWorkflows({
  store: pgStore(pool),
  agent: { model, tools: { effect: effectTool('effect'), guarded: effectTool('guarded') }, approval: { ask: ['guarded'] } },
  owner: executorID,
  leaseTtlMs,
  control,
  onEvent: (sessionId, event, lease) => {
    sessionEpochs.set(sessionId, lease.epoch);
    if (event.type === 'tool-call') callEpochs.set(`${sessionId} ${event.toolCallId}`, lease.epoch);
    return events.publish(sessionId, event, lease);
  },
});
DBOS.setConfig(sessionWorkerConfig({ name: 'loopchart-soak', systemDatabaseUrl: databaseUrl, executorID, logLevel: 'error' }));
await DBOS.launch();
await registerSessionQueue({ minPollingIntervalMs: numberFromEnv('LOOPCHART_QUEUE_POLL_MS', 250) });
startWorkerRecovery({
  pool,
  executorID,
  applicationVersion: SESSION_APPLICATION_VERSION,
  heartbeatMs,
  deadAfterMs,
  onRecovered: (dead, ids) => observe({ kind: 'recovered', deadWorker: dead, workflows: ids }),
});
observe({ kind: 'ready' });
process.stdout.write(`READY ${executorID}\n`);
