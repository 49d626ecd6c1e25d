import { createOpenAI } from '@ai-sdk/openai';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { createWebSocketInspector, startInspectorRelay, type InspectorRelay } from 'loopchart/inspect';
import { redactSecrets, safeJson, sanitizeContext } from '../src/inspect/sanitize.js';
import { stateName } from '../src/machines/state-name.js';
import { startOpenAIServer, streamResponse, type OpenAIServer } from './support/openai-sse-server.js';
import { addTool } from './support/tools.js';

const KEY = 'sk-inspect-test-91e2b7c4d0';
let relay: InspectorRelay | undefined;
let server: OpenAIServer | undefined;
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = undefined;
  server = undefined;
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe('the Stately inspector over a local WebSocket relay', () => {
  it('delivers actor, event and snapshot messages of a tool-loop run, and never the API key', async () => {
    relay = await startInspectorRelay();
    expect(relay.webSocketUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    const received: StatelyInspectionEvent[] = [];
    const raw: string[] = [];
    const receiver = createWebSocketReceiver({ server: relay.webSocketUrl });
    receiver.subscribe((event) => {
      received.push(event);
      raw.push(JSON.stringify(event));
    });

    server = await startOpenAIServer([
      streamResponse({ text: 'Adding.', toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 2, b: 3 } }] }),
      streamResponse({ text: 'It is 5.' }),
    ]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: KEY }).chat('gpt-test');
    const inspector = createWebSocketInspector({ url: relay.webSocketUrl, secrets: [KEY] });
    const agent = createAgent({ model, tools: { add: addTool }, inspect: inspector.inspect, instructions: `never say ${KEY}` });
    // The inspector holds its events until its socket is open, and the relay replays them to the receiver.
    const result = await agent.run(`the key is ${KEY}, add 2 and 3`);
    expect(result.outcome).toBe('completed');

    const rootSnapshots = () =>
      received.filter((event) => event.type === '@xstate.snapshot' && event.rootId === event.sessionId) as Array<StatelyInspectionEvent & { snapshot: { value: unknown } }>;
    await until(() => rootSnapshots().some((event) => stateName(event.snapshot.value) === 'idle' && rootSnapshots().indexOf(event) > 0), 'the final idle snapshot');
    inspector.stop();

    expect(new Set(received.map((event) => event.type))).toEqual(new Set(['@xstate.actor', '@xstate.event', '@xstate.snapshot']));
    const states = rootSnapshots().map((event) => stateName(event.snapshot.value));
    const visited = states.join(' > ');
    expect(visited).toMatch(/running\.llm\.calling.*running\.llm\.streaming.*running\.toolExec.*running\.llm\.calling.*idle$/);
    const actorNames = received.filter((event) => event.type === '@xstate.actor').map((event) => (event as { name: string }).name);
    expect(actorNames).toEqual(expect.arrayContaining(['agent', 'llm', 'tools']));
    expect(raw.some((message) => message.includes(KEY))).toBe(false);
    expect(raw.some((message) => message.includes('[redacted]'))).toBe(true);
  });
});

describe('inspection sanitising', () => {
  it('summarises histories wherever they appear and redacts secrets deeply', () => {
    const context = { messages: Array.from({ length: 500 }, (_, i) => ({ role: 'user', content: `m${i}` })), run: { id: 'r' } };
    expect(sanitizeContext(context)).toEqual({ messages: { messages: 500, last: '{"role":"user","content":"m499"}' }, run: { id: 'r' } });
    expect(redactSecrets({ a: ['x sk-test-1234 y'], b: 'sk-test-1234' }, ['sk-test-1234'])).toEqual({ a: ['x [redacted] y'], b: '[redacted]' });
  });

  it('cuts cycles only: an object shared by two fields is written in both', () => {
    const shared = { tokens: 3 };
    const value: Record<string, unknown> = { usage: shared, stepUsage: shared, list: [shared, shared] };
    value.loop = { back: value };
    expect(JSON.parse(safeJson(value))).toEqual({ usage: { tokens: 3 }, stepUsage: { tokens: 3 }, list: [{ tokens: 3 }, { tokens: 3 }], loop: { back: '[circular]' } });
  });
});
