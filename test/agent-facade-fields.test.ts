import { describe, expect, it } from 'vitest';
import { createAgent, fileStore } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { useTempDir } from './support/temp-dir.js';

/**
 * The facade is a promise adapter over the session chart's actor: the life of the session (open,
 * running, waiting, disposed; the lease; the pending run) is the chart's state, never a field of
 * the agent. Its own properties are listed here; one added (an `isOpen`, a `pending`, a timer)
 * fails this test — put it in the session chart instead.
 */
const FACADE_OWN_PROPERTIES: string[] = [];

const dir = useTempDir('loopchart-facade-fields-');

/** Every own property of the object and of its class's prototype chain up to Object, fields and accessors alike. */
function ownFields(value: object): string[] {
  return [...Object.getOwnPropertyNames(value), ...Object.getOwnPropertySymbols(value).map(String)].sort();
}

describe('the Agent facade', () => {
  it('holds no field of its own, before, during and after a run, with and without a store', async () => {
    const plain = createAgent({ model: mockModel([{ text: ['Hi.'] }]) });
    expect(ownFields(plain)).toEqual(FACADE_OWN_PROPERTIES);
    const running = plain.run('hello');
    expect(ownFields(plain)).toEqual(FACADE_OWN_PROPERTIES);
    await running;
    expect(ownFields(plain)).toEqual(FACADE_OWN_PROPERTIES);

    const stored = createAgent({ model: mockModel([{ text: ['Hi.'] }]), store: fileStore(dir()), sessionId: 'fields', lease: { owner: 'me' } });
    expect(ownFields(stored)).toEqual(FACADE_OWN_PROPERTIES);
    await stored.run('hello');
    await stored.dispose();
    expect(ownFields(stored)).toEqual(FACADE_OWN_PROPERTIES);
  });

  it('keeps no state on its prototype either: only methods and getters that read the session', () => {
    const agent = createAgent({ model: mockModel([]) });
    const prototype = Object.getPrototypeOf(agent) as object;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
      const isMethod = typeof descriptor.value === 'function';
      const isGetter = descriptor.get !== undefined && descriptor.set === undefined;
      expect(isMethod || isGetter, `${name} is a method or a getter`).toBe(true);
    }
  });
});
