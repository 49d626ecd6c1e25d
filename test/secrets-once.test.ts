/**
 * `createAgent({ secrets })` names the secrets once; every sink the agent reaches keeps them out:
 * the session file, the Postgres rows, the Redis stream (through `advanceSession`'s `onEvent`), the
 * inspector's frames, the run's trace, its telemetry spans and its events.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { tool } from 'ai';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { advanceSession, createAgent, fileStore, SecretsOptionError, type AgentEvent, type AgentOptions } from 'loopchart';
import { inspectionBatches } from '../src/inspect/inspection-batch.js';
import { pgStore } from 'loopchart/postgres';
import { redisEventPublisher, sessionEventsKey, type RedisClient } from 'loopchart/redis';
import { scriptedModel } from 'loopchart/test';
import { postgresBinary, startPostgres, type PostgresServer } from './support/postgres-server.js';
import { redisServerBinary, startRedis, type RedisServer } from './support/redis-server.js';

const KEY = 'sk-live-once-7d3e9b1f42a8';

/** A run that carries the key everywhere: in a tool's input and output, in streamed text and in the final message. */
function leakyAgent(): Pick<AgentOptions, 'model' | 'tools' | 'secrets'> {
  const env = tool({ description: 'reads a variable', inputSchema: z.object({ name: z.string() }), execute: async ({ name }) => `${name}=${KEY}` });
  return {
    model: scriptedModel([{ toolCalls: [{ name: 'env', input: { name: `OPENAI_API_KEY ${KEY}` } }] }, { text: `Your key is ${KEY}.` }]),
    tools: { env },
    secrets: [undefined, KEY],
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-secrets-once-'));
  dirs.push(dir);
  return dir;
};

describe('secrets given once to createAgent', () => {
  it('never appear in the session file, the events, the result or its trace', async () => {
    const dir = tempDir();
    const agent = createAgent({ ...leakyAgent(), store: fileStore(dir), sessionId: 's1' });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));
    const result = await agent.run(`Remember ${KEY}`);
    await agent.dispose();
    expect(result.outcome).toBe('completed');
    const file = readFileSync(path.join(dir, 's1.jsonl'), 'utf8');
    expect(file).toContain('Your key is [redacted].');
    expect(file).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result.trace)).toContain('[redacted]');
    expect(result.text).toBe('Your key is [redacted].');
    // In memory the history is what the model saw: the secret is kept out of what leaves the agent.
    expect(JSON.stringify(agent.messages)).toContain(KEY);
  });

  it("never appear in the inspector's frames, though the inspector was made without them", async () => {
    const frames: string[] = [];
    const inspect = inspectionBatches({ send: () => undefined, sendBatch: (texts) => frames.push(...texts) });
    const agent = createAgent({ ...leakyAgent(), inspect });
    expect((await agent.run(`Remember ${KEY}`)).outcome).toBe('completed');
    // The last batch goes out on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames.join('\n')).toContain('[redacted]');
    expect(frames.join('\n')).not.toContain(KEY);
  });

  it('never appear in the telemetry spans', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const failing = scriptedModel([{ error: { message: `401: key ${KEY} is not valid`, status: 401 } }]);
    const agent = createAgent({ ...leakyAgent(), model: failing, retry: { maxAttempts: 1 }, telemetry: { tracer: provider.getTracer('secrets') } });
    expect((await agent.run('hello')).outcome).toBe('failed');
    const ok = createAgent({ ...leakyAgent(), telemetry: { tracer: provider.getTracer('secrets') } });
    expect((await ok.run('hello')).outcome).toBe('completed');
    const spans = exporter.getFinishedSpans().map((span) => JSON.stringify({ attributes: span.attributes, status: span.status, events: span.events }));
    expect(spans.join('\n')).toContain('[redacted]');
    expect(spans.join('\n')).not.toContain(KEY);
    await provider.shutdown();
  });

  it("never appear in a span's name: a tool name the model made up names its execute_tool span", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const model = scriptedModel([{ toolCalls: [{ name: `run_${KEY}`, input: {} }] }, { text: 'That tool does not exist.' }]);
    const agent = createAgent({ ...leakyAgent(), model, telemetry: { tracer: provider.getTracer('secrets') } });
    expect((await agent.run('hello')).outcome).toBe('completed');
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names).toContain('execute_tool run_[redacted]');
    expect(names.join('\n')).not.toContain(KEY);
    await provider.shutdown();
  });

  it('are refused by name when the option is no list of strings, the value never shown', () => {
    expect(() => createAgent({ model: scriptedModel([]), secrets: [KEY, 42 as unknown as string] })).toThrow(/secrets\.1: expected a secret/);
    expect(() => createAgent({ model: scriptedModel([]), secrets: KEY as unknown as string[] })).toThrow(/secrets: expected an array of secrets/);
    try {
      createAgent({ model: scriptedModel([]), secrets: [KEY, 42 as unknown as string] });
    } catch (error) {
      expect(String(error)).not.toContain(KEY);
    }
  });

  it("the sinks' own redact options are refused, pointing at the agent's secrets", () => {
    const unusedRedis = { xAdd: async () => 1, expire: async () => 1, xRead: async () => null, quit: async () => 'OK' } satisfies RedisClient;
    const moved = [
      () => fileStore(tmpdir(), { redact: [KEY] } as never),
      () => pgStore(new pg.Pool({ host: '127.0.0.1', port: 1 }), { redact: [KEY] } as never),
      () => redisEventPublisher({ redis: unusedRedis, redact: [KEY] } as never),
    ];
    for (const make of moved) {
      expect(make).toThrow(SecretsOptionError);
      expect(make).toThrow(/options\.redact: secrets are given once, to the agent: createAgent\(\{ secrets \}\)/);
    }
  });
});

const postgresBin = postgresBinary();
const redisBin = redisServerBinary();

describe.skipIf(postgresBin === undefined || redisBin === undefined)('secrets given once to the agent of advanceSession', () => {
  let postgres: PostgresServer;
  let redisServer: RedisServer;
  beforeAll(async () => {
    [postgres, redisServer] = await Promise.all([startPostgres(postgresBin!), startRedis(redisBin!)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([postgres?.stop(), redisServer?.stop()]);
  });

  it('never appear in the Postgres rows nor the Redis stream', async () => {
    const pool = new pg.Pool({ connectionString: await postgres.createDatabase('secrets_once') });
    const redis = createClient({ url: redisServer.url });
    await redis.connect();
    try {
      const events = redisEventPublisher({ redis });
      const turn = await advanceSession({
        store: pgStore(pool),
        sessionId: 'chat-secret',
        owner: 'worker-1',
        agent: leakyAgent(),
        input: { type: 'prompt', prompt: `Remember ${KEY}` },
        requestId: 'msg-1',
        onEvent: (event, lease) => events.publish('chat-secret', event, lease),
      });
      await events.flushed();
      expect(turn).toMatchObject({ status: 'idle', result: { outcome: 'completed' } });
      const { rows } = await pool.query<{ text: string }>(`SELECT record::text AS text FROM loopchart_session_records WHERE session_id = 'chat-secret'`);
      const stored = rows.map((row) => row.text).join('\n');
      expect(stored).toContain('[redacted]');
      expect(stored).not.toContain(KEY);
      const stream = JSON.stringify(await redis.xRange(sessionEventsKey('chat-secret'), '-', '+'));
      expect(stream).toContain('[redacted]');
      expect(stream).not.toContain(KEY);
    } finally {
      await redis.quit();
      await pool.end();
    }
  }, 60_000);
});
