import type { ToolResultPart } from 'ai';
import type { StopConditionStep } from '../actors/stop-condition-actor.js';
import type { AgentContext } from './context.js';
import type { MessageList } from '../core/message-history.js';

/** The tool results of the run's history by call id, the output as the model saw it. */
function toolResultsById(messages: MessageList, from: number): Map<string, ToolResultPart> {
  const results = new Map<string, ToolResultPart>();
  for (let index = from; index < messages.length; index++) {
    const message = messages.at(index)!;
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') results.set(part.toolCallId, part);
  }
  return results;
}

function outputValue(part: ToolResultPart): unknown {
  const { output } = part;
  return output.type === 'json' || output.type === 'text' || output.type === 'error-text' || output.type === 'error-json' ? output.value : output;
}

/**
 * The run's finished steps in the shape of the AI SDK's `StepResult`, for `stopWhen` conditions such
 * as `isStepCount(n)` and `hasToolCall(name)`. Pure: read from the run's step records and history.
 */
export function stopConditionSteps(context: AgentContext): StopConditionStep[] {
  const run = context.run;
  if (run === undefined) return [];
  const results = toolResultsById(context.messages, run.startIndex);
  return (run.stepRecords ?? []).map((record, index) => {
    const toolCalls = record.toolCalls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }));
    const toolResults = record.toolCalls.flatMap((call) => {
      const part = results.get(call.toolCallId);
      return part ? [{ type: 'tool-result' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, output: outputValue(part) }] : [];
    });
    return {
      stepNumber: index,
      text: record.text,
      finishReason: record.finishReason,
      usage: record.usage,
      toolCalls,
      staticToolCalls: toolCalls,
      dynamicToolCalls: [],
      toolResults,
      staticToolResults: toolResults,
      dynamicToolResults: [],
      ...(record.cost !== undefined ? { cost: record.cost } : {}),
    };
  });
}
