import type { FinishReason, TextStreamPart, ToolSet } from 'ai';
import { invalidCallError, providerToolCallPart, providerToolResultPart } from '../results/provider-tool-parts.js';
import type { AgentEvent } from '../core/events.js';
import type { Outcome, RunResult } from '../core/result.js';
import { approvalIdOf } from '../results/approval-id.js';
import { streamBlockId } from '../results/stream-block-id.js';
import { generatedFilePart } from '../results/generated-file-part.js';
import { toolCallFields, toolResultFields } from '../results/tool-call-fields.js';

type Part = TextStreamPart<ToolSet>;

/** The AI SDK finish reason that stands for a run's outcome. */
export function finishReasonOf(result: Pick<RunResult, 'outcome' | 'finishReason'>): FinishReason {
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

/** The outcomes a `ToolLoopAgent` app cannot tell from the finish reason alone: the stream says them with an `error` part. */
export function isOutcomeToReport(outcome: Outcome): boolean {
  return outcome === 'timeout' || outcome === 'doom-loop' || outcome === 'denied';
}

export function outcomeMessage(result: RunResult): string {
  const detail = result.error ? `: ${result.error.message}` : '';
  return `The agent run ended with outcome "${result.outcome}"${detail}`;
}

const isDynamicTool = (tools: ToolSet, name: string) => Object.hasOwn(tools, name) && tools[name]?.type === 'dynamic';

/**
 * Turns one call's agent events into the parts `ToolLoopAgent`'s `stream()` gives, in its order:
 * `start-step` with the call's warnings, text and reasoning blocks each closed before the next
 * begins, a tool call's input as it is written (`tool-input-start`, `-delta`, `-end`) and then the
 * call, approval requests, results, errors and denials (`tool-output-denied`), the provider's own
 * tool calls and results (`providerExecuted`), sources, generated files, and `finish-step`
 * with the step's usage, model and response. The run's end (`finish`, `error`, `abort`) is the
 * adapter's: it depends on how the call ends, not only on the run.
 */
export class TextStreamPartMapper {
  private readonly open = new Map<string, 'text' | 'reasoning'>();
  private readonly inputs = new Map<string, unknown>();
  private readonly invalid = new Map<string, Error>();
  private readonly writing = new Set<string>();
  private readonly announced = new Set<string>();
  /** A `start-step` waits for its call's warnings (`model-call-start`) or its first output. */
  private heldStart: number | undefined;

  constructor(private readonly tools: ToolSet) {}

  map(event: AgentEvent): Part[] {
    const parts: Part[] = [];
    if (event.type === 'start-step') {
      this.heldStart = event.step;
      return parts;
    }
    if (event.type === 'model-call-start') {
      if (this.heldStart === event.step) parts.push(this.startStep(event.warnings));
      return parts;
    }
    if (event.type === 'finish-step' && event.finishReason === undefined) {
      // The step's call never finished (it failed or was aborted): `ToolLoopAgent` reports no step end for it.
      this.heldStart = undefined;
      return this.closeBlocks();
    }
    if (this.heldStart !== undefined && 'step' in event && event.type !== 'retry') parts.push(this.startStep([]));
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = event.type === 'text-delta' ? 'text' : 'reasoning';
        const id = streamBlockId(event.step, event.attempt, kind, event.id);
        if (!this.open.has(id)) {
          parts.push(...this.closeBlocks());
          this.open.set(id, kind);
          parts.push({ type: `${kind}-start`, id });
        }
        parts.push({ type: event.type, id, text: event.text });
        break;
      }
      case 'retry':
        parts.push(...this.closeBlocks());
        break;
      case 'tool-input-start':
        parts.push(...this.closeBlocks());
        this.writing.add(event.toolCallId);
        parts.push({
          type: 'tool-input-start',
          id: event.toolCallId,
          toolName: event.toolName,
          dynamic: isDynamicTool(this.tools, event.toolName),
          ...(event.providerExecuted ? { providerExecuted: true } : {}),
          ...toolCallFields(this.tools, event.toolName),
        });
        break;
      case 'tool-input-delta':
        parts.push({ type: 'tool-input-delta', id: event.toolCallId, delta: event.delta });
        break;
      case 'tool-input-available':
      case 'tool-call': {
        if (!this.announce(event.toolCallId, event.input, parts)) break;
        const call = { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, ...toolCallFields(this.tools, event.toolName) };
        if (event.invalid) {
          const error = invalidCallError(event);
          this.invalid.set(event.toolCallId, error);
          parts.push({ type: 'tool-call', ...call, dynamic: true, invalid: true, error });
        } else {
          parts.push({ type: 'tool-call', ...call, ...(isDynamicTool(this.tools, event.toolName) ? { dynamic: true } : {}) });
        }
        break;
      }
      case 'provider-tool-call': {
        // A tool the provider ran itself: `ToolLoopAgent`'s stream has its call and result with `providerExecuted`.
        if (!this.announce(event.toolCallId, event.input, parts)) break;
        parts.push({ ...providerToolCallPart(event, isDynamicTool(this.tools, event.toolName)), ...toolCallFields(this.tools, event.toolName) } as Part);
        break;
      }
      case 'provider-tool-result': {
        parts.push({ ...providerToolResultPart(event, this.inputs.get(event.toolCallId)), ...toolResultFields(this.tools, event.toolName) });
        break;
      }
      case 'source':
        parts.push(event.source);
        break;
      case 'file': {
        // A file comes between blocks, as the provider streamed it: the block before it has ended.
        parts.push(...this.closeBlocks());
        const part = generatedFilePart(event.file);
        if (part) parts.push(part);
        break;
      }
      case 'approval-request':
        parts.push({
          type: 'tool-approval-request',
          approvalId: approvalIdOf(event.toolCallId),
          toolCall: { type: 'tool-call', toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, ...toolCallFields(this.tools, event.toolName) },
        });
        break;
      case 'tool-result':
        parts.push(...this.resultParts(event));
        break;
      case 'finish-step':
        parts.push(...this.closeBlocks());
        parts.push({
          type: 'finish-step',
          response: {
            id: event.response?.id ?? `${event.runId}-${event.step}`,
            timestamp: event.response ? new Date(event.response.timestamp) : new Date(),
            modelId: event.response?.modelId ?? event.model?.modelId ?? 'unknown',
          },
          usage: event.usage,
          performance: {},
          finishReason: event.finishReason ?? 'other',
          rawFinishReason: event.rawFinishReason,
          providerMetadata: undefined,
        } as unknown as Part);
        break;
      default:
        break;
    }
    return parts;
  }

  /** The open text and reasoning blocks, ended (before a tool call, the step's end, an abort). */
  closeBlocks(): Part[] {
    const parts = [...this.open].map(([id, kind]): Part => (kind === 'text' ? { type: 'text-end', id } : { type: 'reasoning-end', id }));
    this.open.clear();
    return parts;
  }

  /** Drops a `start-step` still held: a call that failed before its stream began shows none, as with `ToolLoopAgent`. */
  dropHeldStart(): void {
    this.heldStart = undefined;
  }

  /** A call the stream shows for the first time: the open blocks and its input's stream end first. False when it was shown already. */
  private announce(toolCallId: string, input: unknown, parts: Part[]): boolean {
    if (this.announced.has(toolCallId)) return false;
    this.announced.add(toolCallId);
    parts.push(...this.closeBlocks());
    if (this.writing.delete(toolCallId)) parts.push({ type: 'tool-input-end', id: toolCallId });
    this.inputs.set(toolCallId, input);
    return true;
  }

  private startStep(warnings: unknown[]): Part {
    this.heldStart = undefined;
    return { type: 'start-step', request: {}, warnings } as Part;
  }

  private resultParts(event: Extract<AgentEvent, { type: 'tool-result' }>): Part[] {
    const base = { toolCallId: event.toolCallId, toolName: event.toolName };
    const input = this.inputs.get(event.toolCallId);
    const metadata = toolResultFields(this.tools, event.toolName);
    const dynamic = isDynamicTool(this.tools, event.toolName);
    if (event.isError && event.denied) {
      const denied = { type: 'tool-output-denied', ...base } as Part;
      if (!event.denied.automatic) return [denied];
      const approvalId = approvalIdOf(event.toolCallId);
      return [
        { type: 'tool-approval-request', approvalId, toolCall: { type: 'tool-call', ...base, input, ...toolCallFields(this.tools, event.toolName) }, isAutomatic: true },
        { type: 'tool-approval-response', approvalId, approved: false, ...(event.denied.reason ? { reason: event.denied.reason } : {}) } as unknown as Part,
        denied,
      ];
    }
    if (event.isError) {
      const invalid = this.invalid.get(event.toolCallId);
      // The AI SDK gives an invalid call's error by name and message, as its tool-error (with the tool's title, as the call has it).
      if (invalid) return [{ type: 'tool-error', ...base, input, error: `${invalid.name}: ${invalid.message}`, dynamic: true, ...toolCallFields(this.tools, event.toolName) }];
      return [{ type: 'tool-error', ...base, input, error: typeof event.output === 'string' ? new Error(event.output) : event.output, dynamic, ...metadata }];
    }
    return [{ type: 'tool-result', ...base, input, output: event.output, dynamic, ...metadata }];
  }
}
