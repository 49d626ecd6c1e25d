import { describe, expect, it } from 'vitest';
import { toolCallIdOf } from './soak-plan.js';
import { CUT_MS, formatSchedule, soakSchedule, soakSessionIds, type SoakAction } from './soak-schedule.js';

const options = { seed: 11, durationMs: 180_000, sessions: 40, workers: 3, leaseTtlMs: 2_000, deadAfterMs: 8_000 };

describe('soakSchedule', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(soakSchedule(options)).toEqual(soakSchedule(options));
    expect(formatSchedule(soakSchedule(options))).not.toEqual(formatSchedule(soakSchedule({ ...options, seed: 12 })));
  });

  it('sends inputs of every kind to every session, with request ids unique in the soak', () => {
    const { actions, sessionIds } = soakSchedule(options);
    const inputs = actions.filter((action): action is Extract<SoakAction, { kind: 'input' }> => action.kind === 'input');
    expect(new Set(inputs.map((input) => input.sessionId))).toEqual(new Set(sessionIds));
    expect(new Set(inputs.map((input) => input.input.type))).toEqual(new Set(['prompt', 'approve', 'deny', 'abort', 'steer', 'follow-up']));
    expect(new Set(inputs.map((input) => input.requestId)).size).toBe(inputs.length);
    // Each answer names a call that the prompt before it asks for.
    for (const answer of inputs) {
      if (answer.input.type !== 'approve' && answer.input.type !== 'deny') continue;
      const prompt = inputs.find((input) => input.requestId === answer.requestId.replace(/:(approve|deny)$/, ':prompt'))!;
      const [, tag, ask] = /^soak (\S+) tools=\d ask=(\d)/.exec(String((prompt.input as { prompt: string }).prompt))!;
      expect(answer.input.toolCallId).toBe(toolCallIdOf(tag!, Number(ask)));
      expect(answer.at).toBeGreaterThanOrEqual(prompt.at);
    }
  });

  it('has kills, pauses past the lease, cuts and stalls of 0.5-4 s, in time order, with a slot left alone and one window per proxy', () => {
    const { actions } = soakSchedule(options);
    expect(actions.map((action) => action.at)).toEqual(actions.map((action) => action.at).sort((a, b) => a - b));
    const kinds = new Set(actions.map((action) => action.kind));
    expect(kinds).toEqual(new Set(['input', 'kill', 'pause', 'cut', 'stall']));
    const busy = new Map<number, number>();
    const windows: Record<string, number> = { postgres: 0, redis: 0 };
    for (const action of actions) {
      if (action.kind === 'pause') expect(action.forMs).toBeGreaterThan(options.leaseTtlMs);
      if (action.kind === 'cut' || action.kind === 'stall') {
        expect(action.forMs).toBeGreaterThanOrEqual(CUT_MS[0]);
        expect(action.forMs).toBeLessThanOrEqual(CUT_MS[1]);
        expect(action.at).toBeGreaterThanOrEqual(windows[action.target]!);
        windows[action.target] = action.at + action.forMs;
      }
      if (action.kind === 'kill' || action.kind === 'pause') {
        for (const [slot, until] of busy) if (until <= action.at) busy.delete(slot);
        expect(busy.has(action.slot)).toBe(false);
        busy.set(action.slot, action.at + (action.kind === 'kill' ? action.restartAfterMs + 5_000 : action.forMs));
        expect(busy.size).toBeLessThan(options.workers);
      }
    }
  });

  it('names sessions that differ only in "_" and "-"', () => {
    const ids = soakSessionIds(16);
    expect(ids).toContain('r_0');
    expect(ids).toContain('r-0');
    expect(new Set(ids).size).toBe(16);
  });

  it('refuses options it cannot schedule', () => {
    expect(() => soakSchedule({ ...options, sessions: 0 })).toThrow(/sessions must be an integer >= 1/);
    expect(() => soakSchedule({ ...options, durationMs: 10.5 })).toThrow(RangeError);
    expect(() => soakSchedule({ ...options, workers: Number.NaN })).toThrow(RangeError);
  });

  it('prints the seed and one line per action', () => {
    const schedule = soakSchedule({ ...options, durationMs: 20_000, sessions: 4 });
    const lines = formatSchedule(schedule);
    expect(lines[0]).toContain('seed 11');
    expect(lines).toHaveLength(schedule.actions.length + 1);
  });
});
