import { describe, expect, it } from 'vitest';
import { defaultConfig, type AgentContext, type RunState, type StepOutcome } from '../src/machine/context.js';
import * as guards from '../src/machine/guards.js';
import { emptyUsage } from '../src/core/usage.js';
import { MessageHistory } from '../src/core/message-history.js';

function context(run: Partial<RunState> = {}, config: Partial<AgentContext['config']> = {}): AgentContext {
  return {
    config: { ...defaultConfig, ...config },
    messages: MessageHistory.empty,
    queues: { steering: [], followUps: [] },
    prunedToolCallIds: [],
    run: {
      id: 'r',
      startedAt: 0,
      startIndex: 0,
      steps: 1,
      toolCalls: 0,
      usage: emptyUsage,
      stepUsage: emptyUsage,
      doomStreaks: {},
      text: '',
      stepOpen: true,
      calls: [],
      answers: [],
      nextCall: 0,
      attempt: 1,
      compactions: 0,
      ...run,
    },
  };
}

const call = { toolCallId: 'c', toolName: 'read', input: {} };
const finished = (finishReason: 'stop' | 'tool-calls' | 'length', calls = 0): StepOutcome => ({
  status: 'finished',
  finishReason,
  toolCalls: Array.from({ length: calls }, () => call),
});

describe('finishVerdict', () => {
  it.each([
    ['stop', 0, 'completed'],
    ['other', 0, 'completed'],
    ['length', 0, 'context-limit'],
    ['length', 1, 'context-limit'],
    ['content-filter', 0, 'content-filter'],
    ['content-filter', 2, 'content-filter'],
    ['error', 0, 'failed'],
    ['interrupted', 1, 'failed'],
    ['tool-calls', 0, 'failed'],
  ] as const)('%s with %i tool calls ends the run as %s', (finishReason, calls, outcome) => {
    expect(guards.finishVerdict(finishReason, calls)).toMatchObject({ next: 'end', outcome });
  });

  it.each(['tool-calls', 'stop', 'other'] as const)('%s with tool calls runs the tools', (finishReason) => {
    expect(guards.finishVerdict(finishReason, 1)).toEqual({ next: 'tools' });
  });

  it('gives failures an error kind the caller can act on', () => {
    expect(guards.finishVerdict('tool-calls', 0)).toMatchObject({ error: { kind: 'invalid-response' } });
    expect(guards.finishVerdict('interrupted', 0)).toMatchObject({ error: { kind: 'stream' } });
  });
});

describe('deciding guards', () => {
  it('isStopRequested is true once an abort, the deadline or a failed session write asked the run to stop', () => {
    expect(guards.isStopRequested(context())).toBe(false);
    expect(guards.isStopRequested(context({ stop: { outcome: 'aborted', reason: 'x', requests: 1 } }))).toBe(true);
    expect(guards.isStopRequested(context({ stop: { outcome: 'timeout', reason: 'x', requests: 1 } }))).toBe(true);
    expect(guards.isStopRequested(context({ stop: { outcome: 'failed', reason: 'x', requests: 1 } }))).toBe(true);
    expect(guards.isStopRequested({ config: defaultConfig, messages: MessageHistory.empty, queues: { steering: [], followUps: [] }, prunedToolCallIds: [] })).toBe(false);
  });


  it('hasStepFailed is true only for a failed step', () => {
    expect(guards.hasStepFailed(context({ step: { status: 'failed', error: { kind: 'server', message: 'x' } } }))).toBe(true);
    expect(guards.hasStepFailed(context({ step: finished('stop') }))).toBe(false);
  });

  it('isFinishedWith and wantsTools split finished steps', () => {
    expect(guards.isFinishedWith(context({ step: finished('stop') }), 'completed')).toBe(true);
    expect(guards.isFinishedWith(context({ step: finished('stop') }), 'failed')).toBe(false);
    expect(guards.isFinishedWith(context({ step: finished('length') }), 'context-limit')).toBe(true);
    expect(guards.wantsTools(context({ step: finished('stop') }))).toBe(false);
    expect(guards.isFinishedWith(context({ step: finished('tool-calls', 1) }), 'completed')).toBe(false);
    expect(guards.wantsTools(context({ step: finished('tool-calls', 1) }))).toBe(true);
    expect(guards.isFinishedWith(context({ step: { status: 'aborted' } }), 'completed')).toBe(false);
  });

  it('stepError gives the failed call’s error or the failing finish’s', () => {
    const error = { kind: 'server' as const, message: 'x' };
    expect(guards.stepError(context({ step: { status: 'failed', error } }))).toBe(error);
    expect(guards.stepError(context({ step: finished('tool-calls') }))?.kind).toBe('invalid-response');
    expect(guards.stepError(context({ step: finished('stop') }))).toBeUndefined();
  });

  it('isMaxStepsReached compares LLM calls made with maxSteps', () => {
    expect(guards.isMaxStepsReached(context({ steps: 2 }, { maxSteps: 3 }))).toBe(false);
    expect(guards.isMaxStepsReached(context({ steps: 3 }, { maxSteps: 3 }))).toBe(true);
  });

  it('isDoomLoop fires at the threshold and never when disabled', () => {
    expect(guards.isDoomLoop(context({ doomStreaks: { 'read:{}': 2 } }, { doomLoopThreshold: 3 }))).toBe(false);
    expect(guards.isDoomLoop(context({ doomStreaks: { 'read:{}': 3 } }, { doomLoopThreshold: 3 }))).toBe(true);
    expect(guards.isDoomLoop(context({ doomStreaks: { 'read:{}': 9 } }, { doomLoopThreshold: 0 }))).toBe(false);
  });

  it('areAllToolsAnswered waits for every answer', () => {
    const answer = { toolCallId: 'c', toolName: 'read', output: { type: 'text' as const, value: 'x' } };
    expect(guards.areAllToolsAnswered(context({ calls: [call, call], answers: [answer, null] }))).toBe(false);
    expect(guards.areAllToolsAnswered(context({ calls: [call, call], answers: [answer, answer] }))).toBe(true);
  });
});
