import { describe, expect, it } from 'vitest';
import { isConnectionError } from '../../src/persistence/connection-error.js';
import { LeaseHeldError, LeaseLostError, SessionConflictError, SessionFormatError } from '../../src/persistence/session-store.js';
import { AgentOptionsError } from '../../src/options.js';
import { isRetryableSessionError } from '../../src/scale/retryable-error.js';
import { SessionNotDurableError } from '../../src/scale/session-not-durable-error.js';
import { SessionRequestError } from '../../src/scale/session-request.js';
import { SessionSupersededError } from '../../src/scale/session-attempts.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('which failures another attempt can get past', () => {
  it('knows a cut, refused or timed-out connection by its code, its SQLSTATE or pg\'s words, also as a cause', () => {
    for (const error of [
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('connection failure', '08006'),
      withCode('could not serialize access', '40001'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('the write failed', { cause: withCode('write EPIPE', 'EPIPE') }),
    ]) {
      expect(isConnectionError(error), error.message).toBe(true);
      expect(isRetryableSessionError(error), error.message).toBe(true);
    }
  });

  it('retries a lease held or lost, a session written meanwhile, and a boundary the store did not take', () => {
    for (const error of [new LeaseHeldError('s', 'worker-b', Date.now()), new LeaseLostError('taken'), new SessionConflictError('moved on'), new SessionNotDurableError('not written')]) {
      expect(isRetryableSessionError(error), error.name).toBe(true);
    }
  });

  it('fails at once what fails the same way every time', () => {
    for (const error of [
      new SessionRequestError([{ path: 'sessionId', message: 'bad' }]),
      new AgentOptionsError([{ path: 'maxSteps', message: 'too small' }]),
      new SessionFormatError('version 99'),
      new SessionSupersededError('a later attempt took over'),
      new TypeError('Invalid session id'),
      withCode('duplicate key value violates unique constraint', '23505'),
      withCode('relation "x" does not exist', '42P01'),
      'a string',
      undefined,
    ]) {
      expect(isRetryableSessionError(error), String(error)).toBe(false);
    }
  });
});
