import { DBOS } from '@dbos-inc/dbos-sdk';
import { pgControlChannel, registerSessionQueue, registerSessionWorkflows, sessionWorkerConfig, SESSION_APPLICATION_VERSION, startWorkerRecovery } from 'loopchart/dbos';
import { pgStore } from 'loopchart/postgres';
import { redisEventPublisher } from 'loopchart/redis';
import pg from 'pg';
import { createClient } from 'redis';
import { chatAgentOptions } from '../chat-agent.js';
import { modelFactoryFor } from '../model-choice.js';
import { pgNotebook } from '../pg-notebook.js';

/**
 * One worker of the scaled-out chat: runs session turns from the queue
 * (DBOS), keeps sessions and notes in Postgres, publishes every event to
 * Redis, and takes over the turns of workers that died.
 */
export async function startChatWorker(options: { databaseUrl: string; redisUrl: string; executorID: string; model?: string }): Promise<{ stop(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl });
  pool.on('error', () => undefined);
  const redis = createClient({ url: options.redisUrl });
  redis.on('error', () => undefined);
  await redis.connect();
  const events = redisEventPublisher({ redis });
  const control = pgControlChannel(pool);
  const createModel = await modelFactoryFor(options.model ?? 'demo');
  registerSessionWorkflows({
    store: pgStore(pool),
    agent: chatAgentOptions(createModel('any'), pgNotebook(pool)),
    control,
    onEvent: events.publish,
  });
  DBOS.setConfig(sessionWorkerConfig({ name: 'loopchart-chat', systemDatabaseUrl: options.databaseUrl, executorID: options.executorID, logLevel: 'error' }));
  await DBOS.launch();
  await registerSessionQueue({ minPollingIntervalMs: 200 });
  const recovery = startWorkerRecovery({ pool, executorID: options.executorID, applicationVersion: SESSION_APPLICATION_VERSION });
  return {
    async stop() {
      await recovery.stop();
      await control.close();
      await DBOS.shutdown();
      await events.flushed();
      await redis.quit();
      await pool.end();
    },
  };
}

const [databaseUrl, redisUrl, executorID, model] = process.argv.slice(2);
if (databaseUrl && redisUrl && executorID) {
  const worker = await startChatWorker({ databaseUrl, redisUrl, executorID, ...(model ? { model } : {}) });
  console.log(`worker ${executorID} ready`);
  const stop = () => void worker.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
