import { describe, expect, it } from 'vitest';
import { decideByRules } from '../src/approval/approval-policy.js';
import { deliverQueued, deliverSteering, enqueueFollowUp, enqueueSteering } from '../src/machine/queue-updates.js';
import { defaultConfig, type AgentContext } from '../src/machine/context.js';
import { MessageHistory } from '../src/core/message-history.js';

describe('decideByRules', () => {
  const call = (toolName: string, input: unknown = {}) => ({ toolName, input });

  it('checks deny, then ask, then allow, and falls back to the default', () => {
    const rules = { deny: ['rm*'], ask: ['write', 'rm_safe'], allow: ['*'] };
    expect(decideByRules(rules, call('rm_safe'))).toBe('deny');
    expect(decideByRules(rules, call('write'))).toBe('ask');
    expect(decideByRules(rules, call('read'))).toBe('allow');
    expect(decideByRules({ allow: ['read'], default: 'ask' }, call('write'))).toBe('ask');
    expect(decideByRules({}, call('anything'))).toBe('allow');
  });

  it('narrows a rule by an input predicate', () => {
    const rules = { ask: [{ tool: 'bash', when: (input: unknown) => String((input as { command: string }).command).includes('sudo') }] };
    expect(decideByRules(rules, call('bash', { command: 'sudo ls' }))).toBe('ask');
    expect(decideByRules(rules, call('bash', { command: 'ls' }))).toBe('allow');
  });

  it('fails closed when a predicate throws', () => {
    const boom = () => {
      throw new Error('bad predicate');
    };
    expect(decideByRules({ deny: [{ tool: '*', when: boom }] }, call('x'))).toBe('deny');
    expect(decideByRules({ ask: [{ tool: '*', when: boom }] }, call('x'))).toBe('ask');
    expect(decideByRules({ allow: [{ tool: '*', when: boom }], default: 'deny' }, call('x'))).toBe('deny');
  });
});

describe('message queues', () => {
  const base: AgentContext = { config: defaultConfig, messages: MessageHistory.empty, queues: { steering: [], followUps: [] }, prunedToolCallIds: [] };
  const user = (text: string) => ({ role: 'user' as const, content: text });

  it('deliver steering one at a time or all at once', () => {
    let context = enqueueSteering(enqueueSteering(base, user('a')).context, user('b')).context;
    const one = deliverSteering(context, 'r');
    expect(one.context.messages.slice()).toEqual([user('a')]);
    expect(one.context.queues.steering).toEqual([user('b')]);
    expect(one.events).toEqual([{ type: 'message', runId: 'r', message: user('a') }]);
    context = { ...context, config: { ...defaultConfig, steeringMode: 'all' } };
    expect(deliverSteering(context, 'r').context.messages.slice()).toEqual([user('a'), user('b')]);
  });

  it('at a would-be completion, steering goes before follow-ups', () => {
    const context = enqueueFollowUp(enqueueSteering(base, user('steer')).context, user('follow')).context;
    const first = deliverQueued(context, 'r');
    expect(first.context.messages.slice()).toEqual([user('steer')]);
    expect(deliverQueued(first.context, 'r').context.messages.slice()).toEqual([user('steer'), user('follow')]);
  });
});
