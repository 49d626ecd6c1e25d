import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { StepResultRecorder } from '../../src/results/step-result-recorder.js';

const scope = { runId: 'r1', step: 1 };
const delta = (type: 'text-delta' | 'reasoning-delta', id: string, text: string, attempt = 1): AgentEvent => ({ type, ...scope, id, text, attempt });

describe('StepResultRecorder', () => {
  it("puts each delta in the block of its kind, attempt and id, and a step's next attempt starts its content afresh", () => {
    const recorder = new StepResultRecorder({});
    recorder.event({ type: 'start-step', ...scope });
    recorder.event({ type: 'model-call-start', ...scope, attempt: 1, warnings: [] });
    for (const event of [delta('text-delta', 'a', 'A1'), delta('reasoning-delta', 'a', 'R1'), delta('text-delta', 'b', 'B1'), delta('text-delta', 'a', 'A2'), delta('text-delta', 'a', 'A3')]) recorder.event(event);
    expect(recorder.openContent()).toEqual([
      { type: 'text', text: 'A1A2A3' },
      { type: 'reasoning', text: 'R1' },
      { type: 'text', text: 'B1' },
    ]);

    recorder.event({ type: 'model-call-start', ...scope, attempt: 2, warnings: [] });
    for (const event of [delta('text-delta', 'a', 'N1', 2), delta('text-delta', 'a', 'N2', 2)]) recorder.event(event);
    expect(recorder.openContent()).toEqual([{ type: 'text', text: 'N1N2' }]);
  });
});
