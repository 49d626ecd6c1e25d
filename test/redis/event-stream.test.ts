import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { connect, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { EVENT_NOT_PUBLISHED_WARNING, readSessionEvents, REDIS_CONNECTION_WARNING, redisEventPublisher, sessionEventsKey, type RedisClient } from '../../src/redis/event-stream.js';
import { formatSseMessage, serveSessionEvents } from '../../src/redis/sse.js';
import { decodeStreamedEvent, encodeStreamedEvent, EpochFilter, keptText, type StreamedEvent } from '../../src/redis/streamed-event.js';
import { redisServerBinary, startRedis, type RedisServer } from '../support/redis-server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const delta = (runId: string, step: number, attempt: number, text: string): AgentEvent => ({ type: 'text-delta', runId, step, attempt, id: 't', text });
const streamed = (event: AgentEvent, epoch = 1): StreamedEvent => ({ sessionId: 's', epoch, event });

describe('the text a client keeps', () => {
  it('drops the partial text of a retried attempt and of a dead worker', () => {
    const entries = [
      streamed(delta('run-1', 1, 1, 'Hel')),
      streamed(delta('run-1', 1, 2, 'Hello.')), // a retry streams the step again
      streamed(delta('run-1', 2, 1, 'Step two, par'), 1),
      streamed(delta('run-1', 2, 1, 'Step two.'), 2), // another worker after a crash
      streamed(delta('run-1', 2, 1, ' Late words of the dead worker'), 1),
    ];
    expect(keptText(entries)).toEqual(new Map([['run-1', 'Hello.Step two.']]));
  });

  it('drops an abandoned attempt\'s text as soon as its retry or its new worker starts, before any new text', () => {
    const retry: AgentEvent = { type: 'retry', runId: 'run-1', step: 1, attempt: 2, delayMs: 10, error: { kind: 'stream', message: 'cut off' } };
    expect(keptText([streamed(delta('run-1', 1, 1, 'Half')), streamed(retry)])).toEqual(new Map([['run-1', '']]));
    const takeover: AgentEvent = { type: 'start-step', runId: 'run-1', step: 1 };
    expect(keptText([streamed(delta('run-1', 1, 1, 'Half'), 1), streamed(takeover, 2)])).toEqual(new Map([['run-1', '']]));
  });

  it('keeps, for every step, exactly the text of its last producer', () => {
    const producer = fc.record({ text: fc.string({ minLength: 1, maxLength: 12 }), cut: fc.nat(), bumpEpoch: fc.boolean() });
    const steps = fc.array(fc.array(producer, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(steps, (plan) => {
        const entries: StreamedEvent[] = [];
        let expected = '';
        let epoch = 1;
        plan.forEach((producers, stepIndex) => {
          let attempt = 0;
          producers.forEach((one, index) => {
            if (one.bumpEpoch && index > 0) epoch++;
            else attempt++;
            const last = index === producers.length - 1;
            // Every producer but the last stops somewhere in its text.
            const text = last ? one.text : one.text.slice(0, one.cut % (one.text.length + 1));
            for (const chunk of text.match(/.{1,3}/gsu) ?? []) entries.push(streamed(delta('run', stepIndex + 1, Math.max(attempt, 1), chunk), epoch));
            if (last) expected += one.text;
          });
        });
        expect(keptText(entries).get('run') ?? '').toBe(expected);
      }),
    );
  });

  it('ignores what a worker said after another took its session over: a stale run-end never follows the real one', () => {
    const end = (outcome: string, epoch: number) => streamed({ type: 'run-end', runId: 'run-1', result: { outcome } } as unknown as AgentEvent, epoch);
    const entries = [streamed(delta('run-1', 1, 1, 'Done.'), 2), end('completed', 2), streamed(delta('run-1', 1, 1, ' and more'), 1), end('failed', 1)];
    expect(keptText(entries)).toEqual(new Map([['run-1', 'Done.']]));
    const epochs = new EpochFilter();
    expect(entries.filter((entry) => epochs.admit(entry.epoch)).map((entry) => entry.event.type)).toEqual(['text-delta', 'run-end']);
  });

  it('carries errors as their name and message', () => {
    const event = { type: 'hook-error', runId: 'r', hook: 'beforeToolCall', error: new TypeError('bad hook') } as unknown as AgentEvent;
    expect(decodeStreamedEvent(encodeStreamedEvent(streamed(event))).event).toMatchObject({ error: { name: 'TypeError', message: 'bad hook' } });
  });

  it('formats one Server-Sent Event per entry, one data line per line of text', () => {
    expect(formatSseMessage('1-0', 'a\nb')).toBe('id: 1-0\ndata: a\ndata: b\n\n');
  });
});

/** A client that answers every command at once and records what it was asked, for checks that need no server. */
function answeringClient(onRead: () => void = () => undefined) {
  const calls: string[] = [];
  const client: RedisClient = {
    xAdd: async () => void calls.push('xAdd'),
    expire: async () => void calls.push('expire'),
    xRead: async () => {
      calls.push('xRead');
      onRead();
      return null;
    },
    quit: async () => void calls.push('quit'),
  };
  return { client, calls };
}

describe('options refused before anything reaches Redis', () => {
  it('refuses a maxLength or ttlSeconds Redis cannot take as it is, naming it (EXPIRE 0 would delete the stream after every write; a fraction fails every write)', () => {
    const { client, calls } = answeringClient();
    for (const ttlSeconds of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => redisEventPublisher({ redis: client, ttlSeconds }), String(ttlSeconds)).toThrow(
        new RangeError(`redisEventPublisher: ttlSeconds must be a whole number of seconds, 1 or more, not ${ttlSeconds}`),
      );
    }
    for (const maxLength of [0, -5, 2.5, Number.NaN]) {
      expect(() => redisEventPublisher({ redis: client, maxLength }), String(maxLength)).toThrow(
        new RangeError(`redisEventPublisher: maxLength must be a whole number of entries, 1 or more, not ${maxLength}`),
      );
    }
    expect(() => redisEventPublisher({ redis: client, ttlSeconds: 1, maxLength: 1 })).not.toThrow();
    expect(calls).toEqual([]);
  });

  it('refuses a blockMs that is not a whole number of ms, 1 or more (BLOCK 0 waits for ever), before any read', async () => {
    for (const blockMs of [0, -1, 0.5, Number.NaN]) {
      const abort = new AbortController();
      const { client, calls } = answeringClient(() => abort.abort());
      expect(() => readSessionEvents({ redis: client, sessionId: 'chat-block', blockMs, signal: abort.signal }), String(blockMs)).toThrow(
        new RangeError(`readSessionEvents: blockMs must be a whole number of ms, 1 or more, not ${blockMs}`),
      );
      expect(calls).toEqual([]);
    }
  });

  it('refuses an invalid session id as the stores do, before any read', async () => {
    const abort = new AbortController();
    const { client, calls } = answeringClient(() => abort.abort());
    expect(() => readSessionEvents({ redis: client, sessionId: '../chat', signal: abort.signal })).toThrow(TypeError);
    expect(() => readSessionEvents({ redis: client, sessionId: '', signal: abort.signal })).toThrow(/Invalid session id "": expected 1-128 letters/);
    expect(calls).toEqual([]);
  });

  it('serveSessionEvents refuses an invalid session id before it begins the response, and closes the reader it was handed', async () => {
    const { client, calls } = answeringClient();
    const refused: unknown[] = [];
    const http: Server = createServer((request, response) => {
      serveSessionEvents(request, response, { redis: client, sessionId: 'a/b', heartbeatMs: 60_000 }).then(
        () => response.end(),
        (error: unknown) => {
          refused.push(error);
          // The response was left to the handler: it can still answer.
          response.writeHead(400).end(error instanceof Error ? error.message : String(error));
        },
      );
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/^Invalid session id "a\/b": expected 1-128 letters/);
      expect(refused).toEqual([expect.any(TypeError)]);
      expect(calls).toEqual(['quit']);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it.each([Number.NaN, 0, -1, 1.5, 2 ** 31, '60s'])('serveSessionEvents refuses a stalledReaderMs of %s before it begins the response, and closes the reader', async (stalledReaderMs) => {
    let begun = false;
    const response = Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), { writeHead: () => ((begun = true), response) }) as unknown as ServerResponse;
    const request = Object.assign(new EventEmitter(), { headers: {} }) as unknown as IncomingMessage;
    // Were it served, the client goes away at the first read.
    const { client, calls } = answeringClient(() => request.emit('close'));
    await expect(serveSessionEvents(request, response, { redis: client, sessionId: 'chat', stalledReaderMs: stalledReaderMs as number })).rejects.toThrow(
      /serveSessionEvents: stalledReaderMs must be a whole number of ms from 1 to 2147483647/,
    );
    expect({ begun, calls }).toEqual({ begun: false, calls: ['quit'] });
  });

  it.each([Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY, '8MB'])('serveSessionEvents refuses a maxBufferedBytes of %s before it begins the response, and closes the reader', async (maxBufferedBytes) => {
    let begun = false;
    const response = Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), { writeHead: () => ((begun = true), response) }) as unknown as ServerResponse;
    const request = Object.assign(new EventEmitter(), { headers: {} }) as unknown as IncomingMessage;
    const { client, calls } = answeringClient(() => request.emit('close'));
    await expect(serveSessionEvents(request, response, { redis: client, sessionId: 'chat', maxBufferedBytes: maxBufferedBytes as number })).rejects.toThrow(
      /serveSessionEvents: maxBufferedBytes must be a whole number of bytes, 1 or more/,
    );
    expect({ begun, calls }).toEqual({ begun: false, calls: ['quit'] });
  });
});

describe('a publisher without onError', () => {
  const collected: Error[] = [];
  const collect = (warning: Error) => collected.push(warning);
  beforeEach(() => process.on('warning', collect));
  afterEach(() => {
    process.off('warning', collect);
    collected.length = 0;
  });
  const isMarker = (warning: Error) => (warning as Error & { code?: string }).code === 'TEST_MARKER';
  /** The warnings emitted until now (a marker goes out last; warnings arrive in order), without waiting a fixed time. */
  async function warningsSoFar(): Promise<Error[]> {
    process.emitWarning('marker', { code: 'TEST_MARKER' });
    await expect.poll(() => collected.some(isMarker), { timeout: 30_000 }).toBe(true);
    return collected.filter((warning) => !isMarker(warning));
  }
  const down = () => {
    const listeners: Array<(error: Error) => void> = [];
    const refused = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    const client: RedisClient = { xAdd: refused, expire: refused, xRead: refused, eval: refused, quit: async () => undefined, on: (_event, listener) => listeners.push(listener) };
    return { client, listeners };
  };

  it('warns once of the events it could not publish, and says how to hear of each', async () => {
    const events = redisEventPublisher({ redis: down().client });
    for (const event of [delta('run-1', 1, 1, 'a'), delta('run-1', 1, 1, 'b'), delta('run-1', 1, 1, 'c')]) void events.publish('chat-down', event, { epoch: 1 });
    await events.flushed();
    const warnings = await warningsSoFar();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ name: 'LoopchartWarning', code: EVENT_NOT_PUBLISHED_WARNING });
    expect(warnings[0]!.message).toBe(
      'redisEventPublisher: the text-delta event of session chat-down was not published (connect ECONNREFUSED 127.0.0.1:6379); the run goes on without it. Later failures of this publisher are not warned of: pass onError to redisEventPublisher to hear of each.',
    );
  });

  it('warns once of its connection\'s errors, and never lets one end the process', async () => {
    const { client, listeners } = down();
    redisEventPublisher({ redis: client });
    expect(listeners).toHaveLength(1);
    listeners[0]!(new Error('Socket closed unexpectedly'));
    listeners[0]!(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    const warnings = await warningsSoFar();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ name: 'LoopchartWarning', code: REDIS_CONNECTION_WARNING });
    expect(warnings[0]!.message).toMatch(/^redisEventPublisher: the Redis connection reported an error \(Socket closed unexpectedly\);.*pass onError to redisEventPublisher to hear of each\.$/);
  });

  it('is silent when onError is given, which hears of every failure', async () => {
    const { client, listeners } = down();
    const errors: unknown[] = [];
    const events = redisEventPublisher({ redis: client, onError: (error) => errors.push(error) });
    listeners[0]!(new Error('Socket closed unexpectedly'));
    for (const event of [delta('run-1', 1, 1, 'a'), delta('run-1', 1, 1, 'b')]) void events.publish('chat-down', event, { epoch: 1 });
    await events.flushed();
    expect(await warningsSoFar()).toEqual([]);
    expect(errors).toHaveLength(3);
  });
});

describe('a publisher whose onError throws', () => {
  it('still publishes the later events, never rejects a publish, and never lets a connection error end the process', async () => {
    const listeners: Array<(error: Error) => void> = [];
    const written: string[] = [];
    let failNext = true;
    const client: RedisClient = {
      xAdd: async () => undefined,
      expire: async () => undefined,
      xRead: async () => null,
      eval: async (_script, { arguments: args }) => {
        if (failNext) {
          failNext = false;
          throw new Error('READONLY You can\'t write against a read only replica.');
        }
        written.push(args[1]!);
      },
      quit: async () => undefined,
      on: (_event, listener) => listeners.push(listener),
    };
    const heard: unknown[] = [];
    const events = redisEventPublisher({
      redis: client,
      onError: (error) => {
        heard.push(error);
        throw new Error('the app\'s handler is broken');
      },
    });
    expect(() => listeners[0]!(new Error('Socket closed unexpectedly'))).not.toThrow();
    const first = events.publish('chat-1', delta('run-1', 1, 1, 'a'), { epoch: 1 });
    const second = events.publish('chat-1', delta('run-1', 1, 1, 'b'), { epoch: 1 });
    await expect(first).resolves.toBeUndefined();
    await expect(second).resolves.toBeUndefined();
    await expect(events.flushed()).resolves.toBeUndefined();
    expect(heard.map((error) => (error as Error).message)).toEqual(['Socket closed unexpectedly', 'READONLY You can\'t write against a read only replica.']);
    expect(written.map((entry) => decodeStreamedEvent(entry).event)).toMatchObject([{ type: 'text-delta', text: 'b' }]);
  });
});

const redisBin = redisServerBinary();

describe.skipIf(redisBin === undefined)('session events through Redis', () => {
  let server: RedisServer;
  type Client = ReturnType<typeof createClient>;
  let redis: Client;
  const readers: Client[] = [];
  const reader = async () => {
    const client = redis.duplicate();
    client.on('error', () => undefined);
    await client.connect();
    readers.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startRedis(redisBin!);
    redis = createClient({ url: server.url });
    redis.on('error', () => undefined);
    await redis.connect();
  });
  afterAll(async () => {
    for (const client of readers) if (client.isOpen) await client.quit().catch(() => undefined);
    if (redis?.isOpen) await redis.quit();
    await server?.stop();
  });

  const run: AgentEvent[] = [
    { type: 'run-start', runId: 'run-1', prompt: [{ role: 'user', content: 'hi' }] },
    { type: 'start-step', runId: 'run-1', step: 1 },
    delta('run-1', 1, 1, 'Hel'),
    delta('run-1', 1, 2, 'Hello'),
    delta('run-1', 1, 2, ' there.'),
    { type: 'finish-step', runId: 'run-1', step: 1, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } } as AgentEvent,
  ];

  async function readAll(sessionId: string, count: number, lastEventId?: string) {
    const got: Array<{ id: string; entry: StreamedEvent }> = [];
    const abort = new AbortController();
    for await (const item of readSessionEvents({ redis: await reader(), sessionId, blockMs: 100, signal: abort.signal, ...(lastEventId ? { lastEventId } : {}) })) {
      got.push(item);
      if (got.length === count) abort.abort();
    }
    return got;
  }

  it('reads back what a worker published, in order, and continues after a Last-Event-ID', async () => {
    const events = redisEventPublisher({ redis });
    for (const event of run) void events.publish('chat-1', event, { epoch: 1 });
    await events.flushed();
    const all = await readAll('chat-1', run.length);
    expect(all.map(({ entry }) => entry.event)).toEqual(run);
    const rest = await readAll('chat-1', 3, all[2]!.id);
    expect(rest.map(({ entry }) => entry.event)).toEqual(run.slice(3));
    expect(await redis.ttl(sessionEventsKey('chat-1'))).toBeGreaterThan(0);
  });

  it.each([
    ['an entry without an entry field', { note: 'hello' }, /has no "entry" field/],
    ['an entry that is not JSON', { entry: 'not json' }, /its entry is not JSON/],
    ['an entry whose epoch is text (it would make every real entry after it look stale)', { entry: JSON.stringify({ sessionId: 'chat-foreign', epoch: '9', event: { type: 'run-start' } }) }, /its epoch must be a whole number, 0 or more, not "9"/],
    ['an entry without an event', { entry: JSON.stringify({ sessionId: 'chat-foreign', epoch: 1 }) }, /its event must be an object with a type, not undefined/],
    ['an entry of another session', { entry: JSON.stringify({ sessionId: 'chat-other', epoch: 1, event: { type: 'run-start' } }) }, /it belongs to session "chat-other"/],
  ])('refuses %s in a session\'s stream, naming the session and the entry, instead of skipping or yielding it', async (_name, fields, problem) => {
    const key = sessionEventsKey('chat-foreign');
    await redis.del(key);
    const events = redisEventPublisher({ redis });
    void events.publish('chat-foreign', run[0]!, { epoch: 1 });
    await events.flushed();
    const foreign = await redis.xAdd(key, '*', fields);
    void events.publish('chat-foreign', run[1]!, { epoch: 1 });
    await events.flushed();
    const got: string[] = [];
    const read = (async () => {
      for await (const { entry } of readSessionEvents({ redis: await reader(), sessionId: 'chat-foreign', blockMs: 100 })) got.push(entry.event.type);
    })();
    await expect(read).rejects.toThrow(new RegExp(`^Redis stream entry ${foreign} of session chat-foreign is not a loopchart event: `));
    await expect(read).rejects.toThrow(problem);
    expect(got).toEqual(['run-start']);
  });

  it('keeps a stream bounded', async () => {
    const events = redisEventPublisher({ redis, maxLength: 100 });
    for (let i = 0; i < 2_000; i++) void events.publish('chat-bounded', delta('run', 1, 1, 'x'), { epoch: 1 });
    await events.flushed();
    expect(await redis.xLen(sessionEventsKey('chat-bounded'))).toBeLessThan(400);
  });

  it('lets a client drop what a dead worker streamed once a new worker takes over', async () => {
    const dead = redisEventPublisher({ redis });
    void dead.publish('chat-2', delta('run-1', 1, 1, 'Half a sen'), { epoch: 1 });
    await dead.flushed();
    const next = redisEventPublisher({ redis });
    void next.publish('chat-2', delta('run-1', 1, 1, 'A whole sentence.'), { epoch: 2 });
    await next.flushed();
    const entries = (await readAll('chat-2', 2)).map(({ entry }) => entry);
    expect(keptText(entries).get('run-1')).toBe('A whole sentence.');
  });

  it('drops what a fenced-off worker published after the new owner, also for a reader that continues after a Last-Event-ID', async () => {
    const owner = redisEventPublisher({ redis });
    void owner.publish('chat-stale', { type: 'start-step', runId: 'run-1', step: 1 }, { epoch: 2 });
    void owner.publish('chat-stale', delta('run-1', 1, 1, 'Done.'), { epoch: 2 });
    await owner.flushed();
    // A stale entry that got past the publisher's fence (written by a client without EVAL).
    await redis.xAdd(sessionEventsKey('chat-stale'), '*', { entry: encodeStreamedEvent({ sessionId: 'chat-stale', epoch: 1, event: delta('run-1', 1, 1, 'stale words') }), epoch: '1' });
    void owner.publish('chat-stale', { type: 'finish-step', runId: 'run-1', step: 1 } as AgentEvent, { epoch: 2 });
    await owner.flushed();
    const read = await readAll('chat-stale', 3);
    expect(read.map(({ entry }) => entry.epoch)).toEqual([2, 2, 2]);
    // Continuing after the owner's second entry: the reader learns epoch 2 from it and drops the stale one after it.
    const rest = await readAll('chat-stale', 1, read[1]!.id);
    expect(rest.map(({ entry }) => entry.event.type)).toEqual(['finish-step']);
    const everything: StreamedEvent[] = [];
    const abort = new AbortController();
    for await (const { entry } of readSessionEvents({ redis: await reader(), sessionId: 'chat-stale', blockMs: 100, signal: abort.signal, includeStale: true })) {
      everything.push(entry);
      if (everything.length === 4) abort.abort();
    }
    expect(everything.map((entry) => entry.epoch)).toEqual([2, 2, 1, 2]);
  });

  it('refuses, on the server, an entry whose epoch is below the stream\'s last: a late publish of a fenced-off worker never lands after the new owner', async () => {
    const owner = redisEventPublisher({ redis });
    const late = redisEventPublisher({ redis });
    void owner.publish('chat-fenced', delta('run-1', 1, 1, 'Done.'), { epoch: 2 });
    await owner.flushed();
    void late.publish('chat-fenced', delta('run-1', 1, 1, 'stale'), { epoch: 1 });
    await late.flushed();
    void owner.publish('chat-fenced', { type: 'finish-step', runId: 'run-1', step: 1 } as AgentEvent, { epoch: 2 });
    void late.publish('chat-fenced', delta('run-1', 2, 1, 'a new owner'), { epoch: 3 });
    await Promise.all([owner.flushed(), late.flushed()]);
    const entries = (await redis.xRange(sessionEventsKey('chat-fenced'), '-', '+')) ?? [];
    const raw = entries.map((entry) => Number(entry?.message.epoch));
    expect(raw).toEqual([2, 2, 3]);
  });

  it('behind a connection that stops answering, fails each event within writeTimeoutMs of its publish (onError), so flushed() settles; events land in order once it answers again', async () => {
    const proxy = await startTcpProxy({ port: Number(new URL(server.url).port) });
    const proxied = createClient({ url: `redis://127.0.0.1:${proxy.port}` });
    proxied.on('error', () => undefined);
    let stall: Promise<void> | undefined;
    try {
      await proxied.connect();
      const errors: unknown[] = [];
      const events = redisEventPublisher({ redis: proxied, writeTimeoutMs: 1_000, onError: (error) => errors.push(error) });
      void events.publish('chat-stalled', run[0]!, { epoch: 1 });
      await events.flushed();
      expect(errors).toEqual([]);
      stall = proxy.stall(600_000);
      for (const event of run.slice(1, 4)) void events.publish('chat-stalled', event, { epoch: 1 });
      await events.flushed();
      expect(errors.map((error) => (error as Error).message)).toEqual(
        ['start-step', 'text-delta', 'text-delta'].map((type) => `Redis did not confirm the ${type} event of session chat-stalled within 1000 ms (writeTimeoutMs)`),
      );
      proxy.heal();
      await stall;
      void events.publish('chat-stalled', run[4]!, { epoch: 1 });
      await events.flushed();
      // What timed out may still have landed (it was sent; only its answer was late): in publish order, never after a later event.
      const landed = ((await redis.xRange(sessionEventsKey('chat-stalled'), '-', '+')) ?? []).map((entry) => decodeStreamedEvent(entry.message.entry!).event);
      const positions = landed.map((event) => run.findIndex((published) => JSON.stringify(published) === JSON.stringify(event)));
      expect(positions.at(-1)).toBe(4);
      expect(positions).toEqual([...new Set(positions)].sort((a, b) => a - b));
      expect(() => redisEventPublisher({ redis, writeTimeoutMs: 0 })).toThrow(/writeTimeoutMs must be a positive number/);
      expect(() => readSessionEvents({ redis, sessionId: 'chat-stalled', readTimeoutMs: -1 })).toThrow(/readTimeoutMs must be a number of ms, 0 or more, not -1/);
    } finally {
      proxy.heal();
      await stall;
      if (proxied.isOpen) await proxied.quit().catch(() => undefined);
      await proxy.close();
    }
  });

  it('ends the SSE response with an error event when Redis stops answering its reads, instead of keep-alives for ever, and closes its connection', async () => {
    const events = redisEventPublisher({ redis });
    for (const event of run) void events.publish('chat-sse-stalled', event, { epoch: 1 });
    await events.flushed();
    const proxy = await startTcpProxy({ port: Number(new URL(server.url).port) });
    const proxied = createClient({ url: `redis://127.0.0.1:${proxy.port}` });
    proxied.on('error', () => undefined);
    await proxied.connect();
    let served: Promise<void> | undefined;
    const http: Server = createServer((request, response) => {
      served = serveSessionEvents(request, response, { redis: proxied, sessionId: 'chat-sse-stalled', heartbeatMs: 60_000, readTimeoutMs: 500 });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    let stall: Promise<void> | undefined;
    try {
      const response = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk, { stream: true });
        // Everything published has arrived: from here Redis hears nothing and says nothing.
        if (stall === undefined && (text.match(/\nid: /g)?.length ?? 0) + (text.startsWith('id: ') ? 1 : 0) >= run.length) stall = proxy.stall(600_000);
      }
      expect(stall).toBeDefined();
      expect(text).toMatch(/event: error\ndata: "Redis did not answer a read of session chat-sse-stalled's events within 1500 ms \(blockMs \+ readTimeoutMs\)"/);
      await served;
      expect(proxied.isOpen).toBe(false);
    } finally {
      proxy.heal();
      await stall;
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await proxy.close();
    }
  });

  it('answers 400 to a Last-Event-ID of the right shape but beyond what a stream id can be', async () => {
    const http: Server = createServer((request, response) => {
      void reader().then((connection) => serveSessionEvents(request, response, { redis: connection, sessionId: 'chat-ids', heartbeatMs: 60_000 }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
    try {
      for (const id of ['18446744073709551616-0', '0-18446744073709551616', '99999999999999999999999-1']) {
        expect((await fetch(url, { headers: { 'last-event-id': id } })).status).toBe(400);
      }
      const largest = await fetch(url, { headers: { 'last-event-id': '18446744073709551615-18446744073709551615' } });
      expect(largest.status).toBe(200);
      await largest.body?.cancel();
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('stops reading for a client that does not read: what waits for it stays bounded, and it gets everything once it reads', async () => {
    const events = redisEventPublisher({ redis, maxLength: 100_000 });
    const text = 'x'.repeat(20_000);
    const total = 1_500; // ~30 MB of events
    for (let i = 0; i < total; i++) void events.publish('chat-slow', delta('run', 1, 1, text), { epoch: 1 });
    await events.flushed();
    let served: ServerResponse | undefined;
    const http: Server = createServer((request, response) => {
      served = response;
      void reader().then((connection) => serveSessionEvents(request, response, { redis: connection, sessionId: 'chat-slow', heartbeatMs: 60_000 }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as AddressInfo).port;
    const socket = connect(port, '127.0.0.1');
    try {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      socket.pause();
      // The server waits for the socket to drain: it has stopped reading the stream.
      await until(() => served !== undefined && served.listenerCount('drain') > 0);
      expect(served!.writableLength).toBeLessThan(2 * 1024 * 1024);
      let received = 0;
      let carry = '';
      socket.on('data', (chunk: Buffer) => {
        // Event ids begin lines; the last four characters go with the next chunk, too few to hold a whole "\nid: ".
        const text = carry + chunk.toString('latin1');
        received += text.match(/\nid: /g)?.length ?? 0;
        carry = text.slice(-4);
      });
      socket.resume();
      await until(() => received >= total - 1);
    } finally {
      socket.destroy();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('disconnects a client that has read nothing for stalledReaderMs and closes its Redis connection, rather than hold both for ever', async () => {
    const events = redisEventPublisher({ redis, maxLength: 100_000 });
    const text = 'x'.repeat(20_000);
    for (let i = 0; i < 1_500; i++) void events.publish('chat-stalled', delta('run', 1, 1, text), { epoch: 1 }); // ~30 MB
    await events.flushed();
    let served: ServerResponse | undefined;
    let connection: Client | undefined;
    const http: Server = createServer((request, response) => {
      served = response;
      void reader().then((opened) => {
        connection = opened;
        return serveSessionEvents(request, response, { redis: opened, sessionId: 'chat-stalled', heartbeatMs: 60_000, stalledReaderMs: 300 });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const socket = connect((http.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    try {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      socket.pause();
      await until(() => served !== undefined && served.destroyed && connection !== undefined && !connection.isOpen);
    } finally {
      socket.destroy();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('keeps a client that reads a large event slowly but steadily: only one that reads nothing for stalledReaderMs is disconnected', async () => {
    const events = redisEventPublisher({ redis });
    const size = 16 * 1024 * 1024;
    void events.publish('chat-steady', delta('run', 1, 1, 'x'.repeat(size)), { epoch: 1 });
    await events.flushed();
    // A slow link, never idle: it takes 64 KiB every 20 ms (about 3 MB/s), so 16 MiB take some 5 s, more than
    // stalledReaderMs, while no slice takes near it: a reader that wrote the event whole would cut this client off.
    let received = 0;
    const link = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _encoding, done) {
        setTimeout(() => {
          received += chunk.length;
          done();
        }, Math.ceil(chunk.length / (64 * 1024)) * 20);
      },
    });
    const response = Object.assign(link, { writeHead: () => response }) as unknown as ServerResponse;
    const request = Object.assign(new EventEmitter(), { headers: {} }) as unknown as IncomingMessage;
    const served = serveSessionEvents(request, response, { redis: await reader(), sessionId: 'chat-steady', heartbeatMs: 60_000, stalledReaderMs: 2_000, maxBufferedBytes: 64 * 2 ** 20 });
    try {
      await until(() => received > size || link.destroyed);
      expect({ destroyed: link.destroyed, whole: received > size }).toEqual({ destroyed: false, whole: true });
    } finally {
      link.destroy();
      link.emit('close');
      await served;
    }
  }, 60_000);

  it('skips an event larger than maxBufferedBytes with an error event that carries its id, so a reconnecting client goes past it instead of asking for it again and again', async () => {
    const events = redisEventPublisher({ redis });
    void events.publish('chat-large', delta('run', 1, 1, 'before'), { epoch: 1 });
    void events.publish('chat-large', delta('run', 1, 1, 'x'.repeat(200_000)), { epoch: 1 });
    void events.publish('chat-large', delta('run', 1, 1, 'after'), { epoch: 1 });
    await events.flushed();
    const http: Server = createServer((request, response) => {
      void reader().then((connection) => serveSessionEvents(request, response, { redis: connection, sessionId: 'chat-large', heartbeatMs: 60_000, maxBufferedBytes: 64 * 1024 }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
    const text = (message: { data: string }) => ((JSON.parse(message.data) as StreamedEvent).event as { text: string }).text;
    try {
      const [before, skipped, after] = await readSse(url, 3);
      expect(text(before!)).toBe('before');
      expect(skipped!.event).toBe('error');
      expect(JSON.parse(skipped!.data)).toMatch(/event [0-9]+-[0-9]+ is [0-9,]+ bytes, more than maxBufferedBytes \(65,536\)/);
      expect(text(after!)).toBe('after');
      // The client that reconnects after the skipped event continues after it.
      const [next] = await readSse(url, 1, skipped!.id);
      expect(text(next!)).toBe('after');
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('serves the events as Server-Sent Events that a reconnecting browser continues', async () => {
    const events = redisEventPublisher({ redis });
    for (const event of run) void events.publish('chat-3', event, { epoch: 1 });
    await events.flushed();
    const http: Server = createServer((request, response) => {
      void reader().then((connection) => serveSessionEvents(request, response, { redis: connection, sessionId: 'chat-3', heartbeatMs: 60_000 }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
    try {
      const firstTwo = await readSse(url, 2);
      expect(firstTwo.map((message) => (JSON.parse(message.data) as StreamedEvent).event.type)).toEqual(['run-start', 'start-step']);
      const rest = await readSse(url, run.length - 2, firstTwo[1]!.id);
      expect(rest.map((message) => (JSON.parse(message.data) as StreamedEvent).event)).toEqual(run.slice(2));
      expect((await fetch(url, { headers: { 'last-event-id': 'not-an-id' } })).status).toBe(400);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

/** Reads `count` events from an SSE endpoint, then disconnects. */
async function readSse(url: string, count: number, lastEventId?: string): Promise<Array<{ id: string; data: string; event?: string }>> {
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal, headers: lastEventId ? { 'last-event-id': lastEventId } : {} });
  const decoder = new TextDecoder();
  const messages: Array<{ id: string; data: string; event?: string }> = [];
  let buffer = '';
  for await (const chunk of response.body!) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: (.*)$/gm)].map((match) => match[1]).join('\n');
      const event = /^event: (.*)$/m.exec(block)?.[1];
      if (id !== undefined) messages.push({ id, data, ...(event !== undefined ? { event } : {}) });
    }
    if (messages.length >= count) break;
  }
  abort.abort();
  return messages.slice(0, count);
}

/** Resolves once `condition` holds, checking on every turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
