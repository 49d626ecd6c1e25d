/**
 * `sessionWorkerConfig` is the DBOS configuration of a session worker. DBOS keeps whatever
 * `setConfig` is given and reads only the keys it knows, so a key it does not know must be
 * refused here, not left for DBOS to ignore.
 */
import { describe, expect, it } from 'vitest';
import { SESSION_APPLICATION_VERSION, sessionWorkerConfig } from '../../src/dbos/index.js';

describe('sessionWorkerConfig', () => {
  it('refuses a key DBOS does not know, naming the one meant, instead of letting DBOS fall back to its default database', () => {
    expect(() => sessionWorkerConfig({ name: 'chat', systemDatabaseURL: 'postgres://u@db/chat' } as never)).toThrow(
      /^Invalid sessionWorkerConfig options: unknown option "systemDatabaseURL" \(did you mean "systemDatabaseUrl"\?\); it takes name, systemDatabaseUrl, /,
    );
    expect(() => sessionWorkerConfig({ name: 'chat', executorId: 'worker-1' } as never)).toThrow(/unknown option "executorId" \(did you mean "executorID"\?\)/);
  });

  it('refuses an applicationVersion, which it would otherwise replace in silence with the session format\'s', () => {
    expect(() => sessionWorkerConfig({ name: 'chat', applicationVersion: 'v2' } as never)).toThrow(
      new TypeError(
        `Invalid sessionWorkerConfig options: applicationVersion is set by sessionWorkerConfig to ${SESSION_APPLICATION_VERSION} (the session format's), so that every worker recovers every session turn; leave it out`,
      ),
    );
  });

  it("passes DBOS's own keys on as they are, with the session format's application version", () => {
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const config = sessionWorkerConfig({ name: 'chat', executorID: 'worker-1', logLevel: 'error', runMigrations: false, listenQueues: ['loopchart_sessions'], logger });
    expect(config).toEqual({ name: 'chat', executorID: 'worker-1', logLevel: 'error', runMigrations: false, listenQueues: ['loopchart_sessions'], logger, applicationVersion: SESSION_APPLICATION_VERSION });
  });
});
