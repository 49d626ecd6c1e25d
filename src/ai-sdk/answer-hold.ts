import type { TextStreamPart, ToolSet } from 'ai';
import type { AgentEvent } from '../core/events.js';

type Part = TextStreamPart<ToolSet>;

const ANSWER_PARTS: ReadonlySet<Part['type']> = new Set(['text-start', 'text-delta', 'text-end', 'reasoning-start', 'reasoning-delta', 'reasoning-end']);

/**
 * Holds back a model call's text and reasoning parts while its answer may still be rejected by the
 * agent's `output`, so that a rejected answer leaves nothing in the stream (nor in a UI message):
 * an `invalid-output` retry drops them. Anything else lets them go, in order, with what follows:
 * the call's end (`finish-step`), a tool call (a step that calls tools is not a final answer),
 * a retry for another reason, the end of the stream ({@link release}).
 *
 * An agent without an `output` holds nothing: its text streams as it arrives.
 *
 * @example
 * const hold = new AnswerHold(agent.output !== undefined);
 * for (const part of hold.pass(event, mapper.map(event))) parts.push(part);
 */
export class AnswerHold {
  /** The current call's answer parts so far; undefined while nothing is held. */
  private held: Part[] | undefined;

  constructor(private readonly enabled: boolean) {}

  /** The parts to send now, of `parts` (an event's) and of those held before. */
  pass(event: AgentEvent, parts: Part[]): Part[] {
    if (!this.enabled) return parts;
    if (event.type === 'retry' && event.error.kind === 'invalid-output') {
      // The rejected answer, and the ends of its blocks (in `parts`), are dropped.
      const dropping = this.held !== undefined;
      this.held = undefined;
      return dropping ? parts.filter((part) => !ANSWER_PARTS.has(part.type)) : parts;
    }
    if (event.type === 'retry') return [...this.release(), ...parts];
    if (event.type === 'model-call-start') {
      const out = [...this.release(), ...parts];
      this.held = [];
      return out;
    }
    if (this.held === undefined) return parts;
    const out: Part[] = [];
    for (const part of parts) {
      if (this.held !== undefined && ANSWER_PARTS.has(part.type)) this.held.push(part);
      else out.push(...this.release(), part);
    }
    return out;
  }

  /** What is held, let go: the stream ends. */
  release(): Part[] {
    const held = this.held ?? [];
    this.held = undefined;
    return held;
  }
}
