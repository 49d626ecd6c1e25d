import { NoOutputGeneratedError } from 'ai';
import type { RunResult } from '../core/result.js';
import type { StepResultRecorder } from './step-result-recorder.js';

/**
 * What a `RunResult` carries of its steps beyond the steps themselves: every step's tool calls, tool
 * results and warnings, and the last step's reasoning. Only these, where a whole
 * {@link generateTextResult} would gather eleven lists nobody reads.
 */
export function runResultStepFields(steps: StepResultRecorder['steps']) {
  const finalStep = steps.at(-1);
  return {
    toolCalls: steps.flatMap((step) => step.toolCalls),
    toolResults: steps.flatMap((step) => step.toolResults),
    // The AI SDK's `result.reasoning` is the last step's, in the content's shape (`providerMetadata`, a file as a GeneratedFile).
    reasoning: finalStep === undefined ? [] : finalStep.content.filter((part) => part.type === 'reasoning' || part.type === 'reasoning-file').map((part) => ({ ...part })),
    reasoningText: finalStep?.reasoningText,
    warnings: steps.flatMap((step) => step.warnings ?? []),
  };
}

/** What a result is made of: the steps a call saw, the messages they added and their usage. */
export type RecordedSteps = Pick<StepResultRecorder, 'steps' | 'totalUsage' | 'responseMessages'>;

/**
 * What `ToolLoopAgent.generate()` resolves with, from the steps a call saw: `content`, tool calls,
 * tool results and warnings of every step; `text`, `reasoning`, finish reason, response and
 * provider metadata of the last; `usage` and `totalUsage` summed; `responseMessages` all the
 * messages the call added; `output` the parsed structured output (or the text without an `output`).
 */
export function generateTextResult(recorder: RecordedSteps, result: RunResult | undefined) {
  const steps = recorder.steps;
  const finalStep = steps.at(-1) ?? emptyStep();
  const totalUsage = recorder.totalUsage;
  const fields = runResultStepFields(steps);
  return {
    steps,
    finalStep,
    content: steps.flatMap((step) => step.content),
    text: finalStep.text,
    files: steps.flatMap((step) => step.files),
    reasoning: fields.reasoning,
    reasoningText: fields.reasoningText,
    toolCalls: fields.toolCalls,
    staticToolCalls: steps.flatMap((step) => step.staticToolCalls),
    dynamicToolCalls: steps.flatMap((step) => step.dynamicToolCalls),
    toolResults: fields.toolResults,
    staticToolResults: steps.flatMap((step) => step.staticToolResults),
    dynamicToolResults: steps.flatMap((step) => step.dynamicToolResults),
    sources: steps.flatMap((step) => step.sources),
    finishReason: finalStep.finishReason,
    rawFinishReason: finalStep.rawFinishReason,
    warnings: fields.warnings,
    providerMetadata: finalStep.providerMetadata,
    response: finalStep.response,
    responseMessages: recorder.responseMessages,
    request: finalStep.request,
    usage: totalUsage,
    totalUsage,
    /** The parsed structured output, or the text of a run that stopped; the AI SDK's `NoOutputGeneratedError` otherwise. */
    get output(): unknown {
      if (result?.output !== undefined) return result.output;
      if (finalStep.finishReason === 'stop' && result !== undefined && result.outcome === 'completed') return finalStep.text;
      throw new NoOutputGeneratedError();
    },
    /** The loopchart `RunResult`, when the call ended the run (not while it waits for approval). */
    loopchart: result,
  };
}

function emptyStep(): StepResultRecorder['steps'][number] {
  return {
    text: '',
    reasoning: [],
    reasoningText: undefined,
    files: [],
    sources: [],
    content: [],
    toolCalls: [],
    staticToolCalls: [],
    dynamicToolCalls: [],
    toolResults: [],
    staticToolResults: [],
    dynamicToolResults: [],
    finishReason: 'other',
    rawFinishReason: undefined,
    warnings: [],
    providerMetadata: undefined,
    request: {},
    response: { id: '', modelId: '', timestamp: new Date(0), messages: [] },
  } as unknown as StepResultRecorder['steps'][number];
}
