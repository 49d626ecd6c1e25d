import type { InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from 'loopchart';
import { scriptedModel } from 'loopchart/test';
import { runObservers, type RunObserver } from '../src/trace/run-observer.js';
import type { HookTiming } from '../src/core/run-trace.js';

describe('runObservers', () => {
  it('tells every observer each inspection event, agent event and hook timing, in the order given, skipping what is missing', () => {
    const heard: string[] = [];
    const full = (name: string): RunObserver => ({
      inspect: (event) => heard.push(`${name} inspect ${event.type}`),
      event: (event) => heard.push(`${name} event ${event.type}`),
      hook: (timing) => heard.push(`${name} hook ${timing.hook}`),
    });
    const observer = runObservers([full('trace'), undefined, { inspect: (event) => heard.push(`user inspect ${event.type}`) }, full('spans')]);
    observer.inspect({ type: '@xstate.event' } as InspectionEvent);
    observer.event({ type: 'run-start', runId: 'r', prompt: [] } as unknown as AgentEvent);
    observer.hook({ hook: 'beforeLLMCall' } as HookTiming);
    expect(heard).toEqual([
      'trace inspect @xstate.event',
      'user inspect @xstate.event',
      'spans inspect @xstate.event',
      'trace event run-start',
      'spans event run-start',
      'trace hook beforeLLMCall',
      'spans hook beforeLLMCall',
    ]);
  });
});

describe("an agent's observers", () => {
  it('the trace and an inspect observer object both see the run, the observer called as a method', async () => {
    const seen: string[] = [];
    const inspector = {
      label: 'mine',
      next(this: { label: string }, event: InspectionEvent) {
        if (event.type === '@xstate.event') seen.push(this.label);
      },
    };
    const agent = createAgent({ model: scriptedModel([{ text: 'hi' }]), inspect: inspector });
    const result = await agent.run('hello');
    expect(result.trace?.outcome).toBe('completed');
    expect(result.trace?.transitions.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['mine']));
  });
});
