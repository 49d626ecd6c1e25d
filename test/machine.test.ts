import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, waitFor } from 'xstate';
import { createAgent, type AgentEvent } from '../src/index.js';
import { agentImplementations, agentMachine, bindImplementations } from 'loopchart/machine';
import type { LlmActorCommand, LlmActorEvent, LlmActorInput } from '../src/actors/llm-actor.js';
import type { ToolRunnerCommand, ToolRunnerEvent, ToolRunnerInput } from '../src/actors/tool-runner.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const prompt = { type: 'agent.prompt' as const, messages: [{ role: 'user' as const, content: 'go' }] };

function runEnd(actor: ReturnType<typeof createActor<typeof agentMachine>>): Promise<Extract<AgentEvent, { type: 'run-end' }>> {
  return new Promise((resolve) => actor.on('run-end', resolve));
}

describe('agentMachine composed by hand', () => {
  it('runs with agentImplementations bound to the actor and reports through actor.on', async () => {
    const actor = createActor(agentMachine, { input: { config: { maxSteps: 3 } } });
    bindImplementations(actor, agentImplementations({ model: mockModel([{ text: ['hi'] }]) }));
    actor.start();
    const ended = runEnd(actor);
    actor.send(prompt);
    const { result } = await ended;
    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('hi');
    expect(actor.getSnapshot().value).toBe('idle');
  });

  it('without implementations bound, a run fails with a message that says how to bind them', async () => {
    const actor = createActor(agentMachine, { input: {} });
    actor.start();
    const ended = runEnd(actor);
    actor.send(prompt);
    const { result } = await ended;
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toMatch(/bindImplementations\(actor, agentImplementations\(\{ model, tools \}\)\) before actor\.start\(\)/);
  });

  it('a second abort ends the run even when a custom llm actor never answers the first', async () => {
    const deaf = fromCallback<LlmActorCommand, LlmActorInput, LlmActorEvent>(({ sendBack }) => {
      sendBack({ type: 'llm.firstChunk' });
    });
    const actor = createActor(agentMachine.provide({ actors: { llm: deaf } }), { input: {} });
    actor.start();
    const ended = runEnd(actor);
    actor.send(prompt);
    expect(actor.getSnapshot().matches({ running: { llm: 'streaming' } })).toBe(true);
    actor.send({ type: 'agent.abort' });
    expect(actor.getSnapshot().matches({ running: { llm: 'streaming' } })).toBe(true);
    actor.send({ type: 'agent.abort' });
    expect((await ended).result.outcome).toBe('aborted');
  });

  it('a custom tool runner that crashes still answers every call of the run, and the loop goes on; the next run gets a new runner', async () => {
    let runners = 0;
    const crashing = fromCallback<ToolRunnerCommand, ToolRunnerInput, ToolRunnerEvent>(({ receive }) => {
      runners++;
      receive(() => {
        throw new Error('segfault');
      });
    });
    const implementations = agentImplementations({
      model: mockModel([
        {
          toolCalls: [
            { id: 'c1', name: 'add', input: { a: 1, b: 1 } },
            { id: 'c2', name: 'add', input: { a: 2, b: 2 } },
          ],
        },
        { toolCalls: [{ id: 'c3', name: 'add', input: { a: 3, b: 3 } }] },
        { text: ['ok'] },
        { toolCalls: [{ id: 'c4', name: 'add', input: { a: 4, b: 4 } }] },
        { text: ['ok again'] },
      ]),
      tools: { add: addTool },
    });
    const machine = agentMachine.provide({ actors: { ...implementations.actors, tools: crashing } });
    const actor = createActor(machine, { input: { config: { toolExecution: 'sequential' } } });
    actor.start();
    const ended = runEnd(actor);
    actor.send(prompt);
    const { result } = await ended;
    expect(result.outcome).toBe('completed');
    // The runner died on the first call; the calls after it, in this step and the next, get its error too.
    expect(toolOutputs(result.messages)).toEqual({
      c1: { type: 'error-text', value: 'Tool "add" crashed: segfault' },
      c2: { type: 'error-text', value: 'Tool "add" crashed: segfault' },
      c3: { type: 'error-text', value: 'Tool "add" crashed: segfault' },
    });
    await expectValidHistory(result.messages);

    const second = runEnd(actor);
    actor.send(prompt);
    const next = await second;
    expect(next.result.outcome).toBe('completed');
    expect(toolOutputs(next.result.messages)['c4']).toEqual({ type: 'error-text', value: 'Tool "add" crashed: segfault' });
    expect(runners).toBe(2);
  });

  it('an internal crash resolves the run as failed, keeps the history and leaves the agent usable', async () => {
    let calls = 0;
    const agent = createAgent({
      model: mockModel([{ text: ['fine'] }]),
      step: async function* (request) {
        calls++;
        if (calls === 1) {
          // A broken step: a BigInt input cannot be fingerprinted, so the machine's doom-loop bookkeeping throws.
          yield { type: 'tool-call', toolCall: { toolCallId: 'x', toolName: 'add', input: { a: 1n } } };
          yield { type: 'finish', finishReason: 'tool-calls', usage: undefined as never };
          return;
        }
        const { streamLanguageModelCallStep } = await import('../src/index.js');
        yield* streamLanguageModelCallStep(request);
      },
      tools: { add: addTool },
    });
    const result = await agent.run('go');
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toMatch(/^loopchart internal error: /);
    expect(result.messages[0]).toEqual({ role: 'user', content: 'go' });
    await expectValidHistory(result.messages);
    const next = await agent.run('again');
    expect(next.outcome).toBe('completed');
    await waitFor(agent.actor, (snapshot) => snapshot.value === 'idle');
  });
});
