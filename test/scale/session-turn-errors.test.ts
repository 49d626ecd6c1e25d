/**
 * A turn's step is retried only for what can pass (a lease a dead worker still holds, a cut
 * connection); any other error fails the turn at once with that error, instead of retrying it for
 * hours. One DBOS worker runs in this process.
 */
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSessionQueue, registerSessionWorkflows, sessionClient, sessionWorkerConfig, type SessionClient } from '../../src/dbos/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';

const postgresBin = postgresBinary();

describe.skipIf(postgresBin === undefined)('a session turn that cannot succeed', () => {
  let server: PostgresServer;
  let client: DBOSClient;
  let sessions: SessionClient;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgres(postgresBin!);
    const databaseUrl = await server.createDatabase('turns');
    await DBOS.migrate(databaseUrl);
    pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    pool.on('error', () => undefined);
    registerSessionWorkflows({
      store: pgStore(pool),
      // maxSteps 0 is refused by createAgent in every attempt: no retry can get past it.
      agent: { model: scriptedModel([{ text: 'Hello.' }, { text: 'Hello again.' }]), maxSteps: 0 },
      owner: 'worker-1',
      leaseTtlMs: 500,
    });
    DBOS.setConfig(sessionWorkerConfig({ name: 'loopchart-turn-errors', systemDatabaseUrl: databaseUrl, executorID: 'worker-1', logLevel: 'error' }));
    await DBOS.launch();
    await registerSessionQueue({ minPollingIntervalMs: 100 });
    client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
    sessions = sessionClient(client);
  }, 120_000);

  afterAll(async () => {
    await client?.destroy();
    await DBOS.shutdown();
    await pool?.end();
    await server?.stop();
  });

  it('fails at once with the error that will not pass, after one attempt', async () => {
    const turn = await sessions.send('bad-options', { type: 'prompt', prompt: 'hi' }, 'msg-1');
    await expect(sessions.turn(turn).getResult()).rejects.toThrow(/Invalid agent options:[\s\S]*maxSteps/);
    const steps = await client.listWorkflowSteps(turn);
    expect(steps?.map((step) => step.name)).toEqual(['loopchart.advanceSession']);
  });
});
