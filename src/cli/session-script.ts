import type { ModelMessage } from 'ai';
import type { ScriptTurn } from '../test/index.js';
import { replaySession } from '../persistence/session-replay.js';
import type { CheckpointRecord, SessionLog } from '../persistence/session-store.js';
import { sessionRecordView } from '../time-travel/session-record-view.js';
import type { ModelCallRecord, RecordedRun } from '../time-travel/record-types.js';
import { scriptSchema, type Script } from './script.js';
import { UsageError } from './usage-error.js';

/** The built-in tools a script runs again: they touch only the workspace. Any other tool is replayed from its recorded results. */
export const RERUN_TOOLS: readonly string[] = ['read', 'write', 'edit', 'ls', 'glob', 'grep'];

/**
 * A session as a script that replays it on the scripted model (pure): the prompt of each run, each
 * model call as a turn (failed attempts too), the system prompt, step limit and tool execution the
 * session ran with, the recorded results of the tools that are not run again (`RERUN_TOOLS`), and
 * an `expect` block from how the last run ended. With `at`, only what happened up to that checkpoint.
 *
 * @example
 * const script = sessionScript((await store.read('chat-42'))!, {});
 * @throws UsageError when there is no such checkpoint, a run has no model calls recorded (a session
 *   written before they were), or a run began before the session was forked from another.
 */
export function sessionScript(log: SessionLog, options: { at?: number }): Script {
  const checkpoints = log.records.filter((record): record is CheckpointRecord => record.type === 'checkpoint');
  let records = log.records;
  if (options.at !== undefined) {
    const cut = log.records.findIndex((record) => record.type === 'checkpoint' && record.id === options.at);
    if (cut < 0) throw new UsageError(`--at ${options.at}: session ${log.header.sessionId} has no checkpoint ${options.at} (it has ${checkpoints.length})`);
    records = log.records.slice(0, cut + 1);
  }
  const view = sessionRecordView({ ...log, records });
  const runs = view.runs.filter((run) => run.modelCalls.length > 0 || run.timeline.some((point) => point.event === 'agent.prompt'));
  if (runs.length === 0 || runs.every((run) => run.modelCalls.length === 0)) {
    throw new UsageError(
      `session ${log.header.sessionId} has no model calls recorded${log.header.version < 2 ? ' (it was written before loopchart kept them: format version 1)' : ''}: there is nothing for a script to replay`,
    );
  }
  for (const run of runs) {
    if (run.timeline[0]?.event !== 'agent.prompt') {
      const from = log.header.forkedFrom;
      throw new UsageError(
        `run ${run.runId} of session ${log.header.sessionId} began before this session${from ? ` was forked from ${from.sessionId}: make the script from that session (loopchart script ${from.sessionId})` : ' recorded it'}`,
      );
    }
  }
  const firstCheckpoint = (run: RecordedRun) => checkpoints.find((checkpoint) => checkpoint.runId === run.runId);
  const prompts = runs.map((run) => runPrompt(records, firstCheckpoint(run)));
  const config = (firstCheckpoint(runs[0]!)?.snapshot as { context?: { config?: { instructions?: unknown; maxSteps?: number; toolExecution?: 'parallel' | 'sequential' } } } | undefined)?.context?.config;
  const calls = runs.flatMap((run) => run.modelCalls);
  const turns = calls.flatMap((call) => (call.response || call.error ? [scriptTurn(call)] : []));
  const offered = new Set(calls.flatMap((call) => call.request.tools));
  const outputs = toolOutputs(records);
  const toolResults: NonNullable<Script['toolResults']> = {};
  for (const call of calls) {
    for (const toolCall of call.response?.toolCalls ?? []) {
      const output = outputs.get(toolCall.toolCallId);
      if (!RERUN_TOOLS.includes(toolCall.toolName) && output) toolResults[toolCall.toolCallId] = { tool: toolCall.toolName, output: output as { type: string } };
    }
  }
  const last = runs.at(-1)!;
  const end = view.checkpoints.find((checkpoint) => checkpoint.runId === last.runId && checkpoint.outcome !== undefined);
  const lastCall = last.modelCalls.findLast((call) => call.response);
  const cutMidRun = end === undefined;
  const lastStep = Math.max(...last.modelCalls.map((call) => call.step));
  const outcome = end?.outcome ?? (cutMidRun && (lastCall?.response?.toolCalls.length ?? 0) > 0 ? 'max-steps' : undefined);
  return scriptSchema.parse({
    prompt: prompts.length === 1 ? prompts[0] : prompts,
    ...(typeof config?.instructions === 'string' ? { instructions: config.instructions } : {}),
    tools: [...offered].filter((name) => RERUN_TOOLS.includes(name)),
    ...(cutMidRun ? { maxSteps: lastStep } : config?.maxSteps !== undefined ? { maxSteps: config.maxSteps } : {}),
    ...(config?.toolExecution !== undefined ? { toolExecution: config.toolExecution } : {}),
    ...(Object.keys(toolResults).length > 0 ? { toolResults } : {}),
    turns,
    ...(outcome !== undefined && outcome !== 'aborted'
      ? { expect: { outcome, ...(!cutMidRun && lastCall?.response?.text ? { textContains: lastCall.response.text } : {}) } }
      : {}),
  });
}

/** The user message(s) a run started with: the history at its first checkpoint, from where the run's messages begin. */
function runPrompt(records: SessionLog['records'], checkpoint: CheckpointRecord | undefined): string {
  if (!checkpoint) throw new UsageError('a run of the session has no checkpoint: there is no prompt to replay');
  const { messages } = replaySession(records, checkpoint.id);
  const start = (checkpoint.snapshot as { context?: { run?: { startIndex?: number } } } | undefined)?.context?.run?.startIndex ?? messages.length - 1;
  const prompt: string[] = [];
  for (const message of messages.slice(start)) {
    if (message.role !== 'user') break;
    prompt.push(textOf(message));
  }
  const text = prompt.join('\n\n');
  if (text === '') throw new UsageError(`the run at checkpoint ${checkpoint.id} starts with no user text: there is no prompt to replay`);
  return text;
}

function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

/** What each tool call answered, as the model was sent it, from every message the session wrote. */
function toolOutputs(records: SessionLog['records']): Map<string, unknown> {
  const outputs = new Map<string, unknown>();
  const add = (message: ModelMessage) => {
    if (message.role !== 'tool') return;
    for (const part of message.content) if (part.type === 'tool-result') outputs.set(part.toolCallId, part.output);
  };
  for (const record of records) {
    if (record.type === 'message') add(record.message);
    else if (record.type === 'history') record.messages.forEach(add);
  }
  return outputs;
}

/** One model call as the scripted model's turn. */
function scriptTurn(call: ModelCallRecord): ScriptTurn {
  if (call.error) return { error: { ...(call.error.status !== undefined ? { status: call.error.status } : {}), message: call.error.message } };
  const response = call.response!;
  const usage = scriptUsage(response.usage);
  return {
    ...(response.reasoning ? { reasoning: response.reasoning } : {}),
    ...(response.text !== '' ? { text: response.text } : {}),
    ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls.map((toolCall) => ({ id: toolCall.toolCallId, name: toolCall.toolName, input: toolCall.input })) } : {}),
    ...(response.finishReason !== undefined ? { finishReason: response.finishReason as ScriptTurn['finishReason'] } : {}),
    ...(usage ? { usage } : {}),
  };
}

function scriptUsage(usage: unknown): ScriptTurn['usage'] {
  const figures = usage as
    | { inputTokens?: number; outputTokens?: number; inputTokenDetails?: { noCacheTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number }; outputTokenDetails?: { textTokens?: number; reasoningTokens?: number } }
    | undefined;
  if (!figures) return undefined;
  const all = {
    inputTokens: figures.inputTokens,
    outputTokens: figures.outputTokens,
    noCacheTokens: figures.inputTokenDetails?.noCacheTokens,
    cacheReadTokens: figures.inputTokenDetails?.cacheReadTokens,
    cacheWriteTokens: figures.inputTokenDetails?.cacheWriteTokens,
    textTokens: figures.outputTokenDetails?.textTokens,
    reasoningTokens: figures.outputTokenDetails?.reasoningTokens,
  };
  const reported = Object.entries(all).filter(([, value]) => typeof value === 'number');
  return reported.length > 0 ? Object.fromEntries(reported) : undefined;
}
