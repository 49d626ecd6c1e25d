import { describe, expect, it } from 'vitest';
import { Actor } from 'xstate';
import { createAgent, fileStore } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { useTempDir } from './support/temp-dir.js';

const dir = useTempDir('loopchart-actor-identity-');

describe('agent.actor', () => {
  it('is the same actor before and after ready(): what was kept reads the restored session, and its subscribers hear the run', async () => {
    const store = fileStore(dir());
    const first = createAgent({ model: mockModel([{ text: ['Hello.'] }]), store, sessionId: 'chat' });
    await first.run('hi');
    await first.dispose();

    const second = createAgent({ model: mockModel([{ text: ['Again.'] }]), store, sessionId: 'chat' });
    const before = second.actor;
    const states: string[] = [];
    const subscription = before.subscribe((snapshot) => states.push(JSON.stringify(snapshot.value)));
    await second.ready();

    expect(second.actor).toBe(before);
    expect(before).toBeInstanceOf(Actor);
    expect(before.getSnapshot().context.messages).toHaveLength(2);
    await second.run('again');
    subscription.unsubscribe();
    expect(states.some((state) => state.includes('running'))).toBe(true);
    expect(states.at(-1)).toBe('"idle"');
    expect(before.getSnapshot().context.messages).toHaveLength(4);
  });
});
