import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startWorkerRecovery } from '../../src/dbos/worker-recovery.js';
import { tolerateIdleConnectionErrors } from '../../src/postgres/pg-connection-errors.js';

/** A pool whose server is gone: every connection and query is refused; its 'error' events are real EventEmitter events. */
function refusingPool(): Pool & EventEmitter {
  const pool = new EventEmitter() as Pool & EventEmitter;
  const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
  Object.assign(pool, { connect: refused, query: refused });
  return pool;
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);
afterEach(() => {
  unhandled.length = 0;
});

describe("an app's error handler that throws", () => {
  it("tolerateIdleConnectionErrors: a throw of the handler does not escape the pool's 'error' event (which would end the process)", () => {
    const pool = refusingPool();
    const heard: unknown[] = [];
    tolerateIdleConnectionErrors(pool, (error) => {
      heard.push(error);
      throw new Error("the app's handler is broken");
    });
    expect(() => pool.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
    expect(heard).toHaveLength(1);
  });

  it('startWorkerRecovery: a throw of onError for a failed beat is no unhandled rejection, and later beats still report', async () => {
    const heard: unknown[] = [];
    const recovery = startWorkerRecovery({
      pool: refusingPool(),
      executorID: 'worker-1',
      applicationVersion: 'v1',
      heartbeatMs: 10,
      onError: (error) => {
        heard.push(error);
        throw new Error("the app's handler is broken");
      },
    });
    try {
      await vi.waitFor(() => expect(heard.length).toBeGreaterThanOrEqual(2), { timeout: 30_000 });
      // A rejection is reported as unhandled after the microtasks of its turn: let a macrotask pass.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      await recovery.stop();
    }
  });
});
