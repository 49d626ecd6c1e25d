/**
 * sessionClient routes each input to the session it names and no other: DBOS finds a session's
 * turns by workflow id prefix, a SQL LIKE in which `_` would match any character. No worker runs
 * here, so every turn stays on the queue where the test can look at it.
 */
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionClient, type SessionClient } from '../../src/dbos/index.js';
import { SessionRequestError } from '../../src/scale/session-request.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';

const postgresBin = postgresBinary();

describe.skipIf(postgresBin === undefined)('sessionClient routing', () => {
  let server: PostgresServer;
  let client: DBOSClient;
  let sessions: SessionClient;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgres(postgresBin!);
    const databaseUrl = await server.createDatabase('routing');
    await DBOS.migrate(databaseUrl);
    client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
    sessions = sessionClient(client);
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    await client?.destroy();
    await pool?.end();
    await server?.stop();
  });

  /** The inputs waiting in a turn's mailbox. */
  const mailbox = async (turn: string) => (await pool.query('SELECT message FROM dbos.notifications WHERE destination_uuid = $1', [turn])).rowCount;

  it('never takes the turn of a session whose id differs only in _ or -', async () => {
    const dashed = await sessions.send('chat-7', { type: 'prompt', prompt: 'hello' }, 'msg-1');
    expect(await sessions.activeTurn('chat-7')).toBe(dashed);
    expect(await sessions.activeTurn('chat_7')).toBeUndefined();
    expect(await sessions.activeTurn('chat77')).toBeUndefined();
    // An abort for chat_7 starts a turn of its own instead of reaching chat-7's mailbox.
    const abort = await sessions.send('chat_7', { type: 'abort' }, 'abort-1');
    expect(abort).toBe('loopchart:chat_7:abort-1');
    expect(await mailbox(dashed)).toBe(0);
    expect(await sessions.activeTurn('chat-7')).toBe(dashed);
    expect(await sessions.activeTurn('chat_7')).toBe(abort);
    // And the other way round: an answer for chat-7 reaches chat-7's turn, not chat_7's.
    expect(await sessions.send('chat-7', { type: 'approve', toolCallId: 'call-1' }, 'approve-1')).toBe(dashed);
    expect(await mailbox(dashed)).toBe(1);
    expect(await mailbox(abort)).toBe(0);
  });

  it('refuses at the door a session id, request id or input that no worker could apply, and enqueues nothing', async () => {
    const before = (await client.listWorkflows({})).length;
    for (const sessionId of ['chat%', 'chat\\7', 'chat:7', '.chat', 'a/b', '']) {
      await expect(sessions.send(sessionId, { type: 'abort' }, 'abort-2')).rejects.toBeInstanceOf(SessionRequestError);
      await expect(sessions.activeTurn(sessionId)).rejects.toBeInstanceOf(TypeError);
    }
    await expect(sessions.send('chat-8', { type: 'approve' } as never, 'x')).rejects.toThrow(/input\.toolCallId/);
    await expect(sessions.send('chat-8', { type: 'prompt', prompt: 'hi' }, '')).rejects.toThrow(/requestId/);
    // A worker would leave the misspelt field out: the denial would reach the model without its reason.
    await expect(sessions.send('chat-8', { type: 'deny', toolCallId: 'call-1', reasn: 'not on main' } as never, 'deny-1')).rejects.toThrow(
      'input: unknown field "reasn" of a deny input (did you mean "reason"?): no worker reads it; it takes type, toolCallId, reason',
    );
    expect((await client.listWorkflows({})).length).toBe(before);
  });
});
