import type { FinishReason, TextStreamPart, ToolSet } from 'ai';
import type { AgentEvent } from '../events.js';
import type { Outcome, RunResult } from '../result.js';

type Part = TextStreamPart<ToolSet>;

/** The AI SDK finish reason that stands for a run's outcome. */
export function finishReasonOf(result: RunResult): FinishReason {
  const byOutcome: Record<Exclude<Outcome, 'completed'>, FinishReason> = {
    'context-limit': 'length',
    'content-filter': 'content-filter',
    failed: 'error',
    timeout: 'error',
    aborted: 'interrupted',
    // The model still wanted to call tools when the run stopped.
    'max-steps': 'tool-calls',
    'doom-loop': 'tool-calls',
    denied: 'other',
  };
  return result.outcome === 'completed' ? (result.finishReason ?? 'stop') : byOutcome[result.outcome];
}

function outcomeMessage(result: RunResult): string {
  const detail = result.error ? `: ${result.error.message}` : '';
  return `The agent run ended with outcome "${result.outcome}"${detail}`;
}

/**
 * Turns one run's agent events into the AI SDK's `TextStreamPart`s, in order:
 * text and reasoning blocks get their start and end parts, tool results and
 * errors carry the call's input, approval requests become
 * `tool-approval-request` parts. An outcome other than `completed` is never a
 * silent stop: an `error` part (or `abort`) says which outcome it was before
 * the `finish`.
 */
export class TextStreamPartMapper {
  private readonly open = new Map<string, 'text' | 'reasoning'>();
  private readonly inputs = new Map<string, unknown>();

  map(event: AgentEvent): Part[] {
    const parts: Part[] = [];
    switch (event.type) {
      case 'run-start':
        parts.push({ type: 'start' });
        break;
      case 'start-step':
        parts.push({ type: 'start-step', request: {}, warnings: [] });
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = event.type === 'text-delta' ? 'text' : 'reasoning';
        const id = `${event.step}-${event.attempt}-${kind}-${event.id}`;
        if (!this.open.has(id)) {
          this.open.set(id, kind);
          parts.push({ type: `${kind}-start`, id });
        }
        parts.push({ type: event.type, id, text: event.text });
        break;
      }
      case 'retry':
        parts.push(...this.closeBlocks());
        break;
      case 'tool-call':
        parts.push(...this.closeBlocks());
        this.inputs.set(event.toolCallId, event.input);
        parts.push({
          type: 'tool-call',
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.input,
          dynamic: true,
          ...(event.invalid ? { invalid: true, error: 'invalid tool call' } : {}),
        });
        break;
      case 'approval-request':
        parts.push({
          type: 'tool-approval-request',
          approvalId: event.toolCallId,
          toolCall: { type: 'tool-call', toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, dynamic: true },
        } as unknown as Part);
        break;
      case 'tool-result': {
        const input = this.inputs.get(event.toolCallId);
        parts.push(
          (event.isError
            ? { type: 'tool-error', toolCallId: event.toolCallId, toolName: event.toolName, input, error: event.output, dynamic: true }
            : { type: 'tool-result', toolCallId: event.toolCallId, toolName: event.toolName, input, output: event.output, dynamic: true }),
        );
        break;
      }
      case 'finish-step':
        parts.push(...this.closeBlocks());
        parts.push({
          type: 'finish-step',
          response: { id: `step-${event.step}`, timestamp: new Date(), modelId: '' },
          usage: event.usage,
          performance: {},
          finishReason: event.finishReason ?? 'other',
          rawFinishReason: event.finishReason,
          providerMetadata: undefined,
        } as unknown as Part);
        break;
      case 'run-end': {
        parts.push(...this.closeBlocks());
        const { result } = event;
        if (result.outcome === 'aborted') parts.push({ type: 'abort', reason: result.error?.message ?? 'aborted' });
        else if (result.outcome !== 'completed') parts.push({ type: 'error', error: new Error(outcomeMessage(result)) });
        parts.push({
          type: 'finish',
          finishReason: finishReasonOf(result),
          rawFinishReason: `loopchart:${result.outcome}`,
          totalUsage: result.usage,
        });
        break;
      }
      default:
        break;
    }
    return parts;
  }

  private closeBlocks(): Part[] {
    const parts = [...this.open].map(([id, kind]): Part => (kind === 'text' ? { type: 'text-end', id } : { type: 'reasoning-end', id }));
    this.open.clear();
    return parts;
  }
}
