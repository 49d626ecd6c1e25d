import { describe, expect, it } from 'vitest';
import { boundedStore } from '../../src/persistence/bounded-store.js';
import type { SessionLeases, SessionStore } from '../../src/persistence/session-store.js';
import { StoreTimeoutError } from '../../src/persistence/store-timeout-error.js';
import { isRetryableSessionError } from '../../src/scale/retryable-error.js';

const never = () => new Promise<never>(() => undefined);
const leases = { acquire: never, renew: never, release: never } as unknown as SessionLeases;
const unanswering: SessionStore = { read: never, create: never, append: never, leases };

describe('boundedStore', () => {
  it.each([
    ['a read of session chat-1', (store: SessionStore) => store.read('chat-1')],
    ['the creation of session chat-1', (store: SessionStore) => store.create({ type: 'header', format: 'loopchart-session', version: 2, sessionId: 'chat-1', createdAt: '' } as never)],
    ['an append to session chat-1', (store: SessionStore) => store.append('chat-1', [])],
  ])('rejects %s that the store never answers with a retryable StoreTimeoutError naming the call', async (named, call) => {
    const error = await call(boundedStore(unanswering, 50)).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect((error as Error).message).toBe(`the session store did not answer ${named} within 50 ms`);
    expect(isRetryableSessionError(error)).toBe(true);
  });

  it("passes a store's answers and errors on as they are, and its leases untouched", async () => {
    const refused = new Error('disk full');
    const store: SessionStore = { read: async () => undefined, create: async () => 'v1', append: async () => Promise.reject(refused), leases };
    const bounded = boundedStore(store, 50);
    await expect(bounded.read('chat-1')).resolves.toBeUndefined();
    await expect(bounded.create({ sessionId: 'chat-1' } as never)).resolves.toBe('v1');
    await expect(bounded.append('chat-1', [])).rejects.toBe(refused);
    expect(bounded.leases).toBe(leases);
    expect(boundedStore({ read: store.read, create: store.create, append: store.append }, 50).leases).toBeUndefined();
  });
});
