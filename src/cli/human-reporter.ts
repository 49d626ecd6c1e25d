import { formatCost } from '../cost/format-cost.js';
import type { AgentEvent } from '../core/events.js';
import type { GeneratedStepFile } from '../core/step.js';
import type { CliRunResult, Reporter, ReporterOptions } from './reporter-contract.js';
import { callWarningNotices } from './call-warning-notices.js';
import { plural } from './plural.js';
import { terminalSafe } from './terminal-text.js';

const MAX_PREVIEW = 120;

/** Events that show the model has answered (or will not): the spinner's wait for it ends. A stream that has only begun (`model-call-start`) has not. */
const MODEL_ANSWERED = new Set<AgentEvent['type']>(['text-delta', 'reasoning-delta', 'tool-input-start', 'tool-input-available', 'tool-call', 'provider-tool-call', 'file', 'finish-step', 'retry', 'stream-warning', 'approval-request', 'run-end']);

/**
 * Output for people: the assistant's text goes to stdout; reasoning (dimmed),
 * tool calls, their results, the provider's warnings (each distinct one once per run), the spinner for a
 * model that has not answered yet and for tools still running, and the closing summary go to stderr, so
 * `> answer.txt` keeps only the answer.
 *
 * stdout holds only what the run kept. On a terminal the text streams as it
 * arrives, and when a retry discards an attempt, a line on stderr says so.
 * Elsewhere an attempt's text is held until the attempt is kept (its
 * assistant message enters the history) and written then, so a file never
 * holds the cut-off text of a failed attempt.
 */
export function humanReporter({ stdout, stdoutIsTerminal = false, stderr, palette, indicator }: ReporterOptions): Reporter {
  let textOpen = false;
  let reasoningOpen = false;
  /** The current attempt's text, held back from a stdout that is not a terminal. */
  let held: string[] = [];
  /** Whether the current attempt has shown text on the terminal. */
  let attemptShown = false;
  /** Tool calls announced whose result has not come: at the run's end, the calls the run interrupted. */
  const unanswered = new Set<string>();
  /** The run's calls that were denied instead of run (they are not in `toolCallCount`). */
  let denied = 0;
  /** The indicator's entry for a model call that has not answered yet. */
  let waitingForModel: string | undefined;
  const callWarnings = callWarningNotices();
  const modelAnswered = () => {
    if (waitingForModel === undefined) return;
    indicator.remove(waitingForModel);
    waitingForModel = undefined;
  };
  const waitForModel = (id: string, label: string) => {
    modelAnswered();
    waitingForModel = id;
    indicator.add(id, label);
  };
  /** The indicator's entry for a failed model call's wait before it is tried again. */
  let retrying: string | undefined;
  const retried = () => {
    if (retrying === undefined) return;
    indicator.remove(retrying);
    retrying = undefined;
  };

  const writeText = (text: string) => {
    stdout.write(terminalSafe(text));
    textOpen = !text.endsWith('\n');
  };
  const releaseHeld = () => {
    if (held.length === 0) return;
    const text = held.join('');
    held = [];
    if (text.length > 0) writeText(text);
  };

  const endOpenLines = () => {
    if (textOpen) stdout.write('\n');
    if (reasoningOpen) stderr.write('\n');
    textOpen = reasoningOpen = false;
  };
  const log = (line: string) => {
    indicator.clear();
    endOpenLines();
    stderr.write(`${line}\n`);
  };

  return {
    event(event: AgentEvent) {
      // The first sign of the model's answer (or the step's end) ends the wait the spinner shows.
      if (MODEL_ANSWERED.has(event.type)) modelAnswered();
      switch (event.type) {
        case 'run-start':
          denied = 0;
          break;
        case 'start-step':
          waitForModel(`model ${event.runId} ${event.step}`, 'waiting for the model');
          break;
        case 'model-call-start':
          for (const line of callWarnings(event)) log(palette.yellow(terminalSafe(line)));
          // A retried call: its wait is over, the model's is on again.
          if (retrying !== undefined) {
            retried();
            waitForModel(`model ${event.runId} ${event.step}`, `waiting for the model (attempt ${event.attempt})`);
          }
          break;
        case 'compaction-start':
          indicator.add(`compaction ${event.runId}`, 'compacting the context');
          break;
        case 'compaction-end':
          indicator.remove(`compaction ${event.runId}`);
          break;
        case 'text-delta':
          if (reasoningOpen) stderr.write('\n');
          reasoningOpen = false;
          if (event.text.length === 0) break;
          if (stdoutIsTerminal) {
            attemptShown = true;
            writeText(event.text);
          } else {
            held.push(event.text);
          }
          break;
        case 'message':
          // The attempt's output entered the history: it is kept.
          if (event.message.role === 'assistant') releaseHeld();
          attemptShown = false;
          break;
        case 'reasoning-delta':
          if (event.text.length === 0) break;
          stderr.write(palette.dim(terminalSafe(event.text)));
          reasoningOpen = !event.text.endsWith('\n');
          break;
        case 'tool-call':
          log(palette.cyan(`→ ${event.toolName} ${preview(event.input)}${event.invalid ? ' (invalid input)' : ''}`));
          indicator.add(event.toolCallId, event.toolName);
          unanswered.add(event.toolCallId);
          break;
        case 'tool-result': {
          indicator.remove(event.toolCallId);
          unanswered.delete(event.toolCallId);
          if (event.isError && event.denied) denied++;
          const line = `${event.isError ? '✗' : '✓'} ${event.toolName} (${Math.round(event.durationMs)} ms) ${preview(event.output)}`;
          log(event.isError ? palette.red(line) : palette.green(line));
          break;
        }
        case 'file':
          // Not drawn on a terminal: said, so that a file the model made is not missed (it is in the history and in --json).
          log(palette.dim(`▣ ${event.file.type === 'reasoning-file' ? 'a file of the reasoning' : 'a file'}: ${terminalSafe(event.file.mediaType)}, ${fileSize(event.file)} (kept in the history, not shown)`));
          break;
        case 'approval-request':
          // The step's calls wait for an answer, maybe a question on this terminal: no spinner may draw over it.
          indicator.stop();
          break;
        case 'retry':
          held = [];
          if (attemptShown) log(palette.dim(`(attempt ${event.attempt - 1}'s text above is discarded)`));
          attemptShown = false;
          log(palette.yellow(`retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}) after ${event.error.kind}: ${terminalSafe(event.error.message)}`));
          retried();
          retrying = `retry ${event.runId} ${event.step}`;
          indicator.add(retrying, `retrying the model call (attempt ${event.attempt})`);
          break;
        case 'stream-warning':
          log(palette.yellow(`the model's stream reported an error and went on (step ${event.step}): ${terminalSafe(event.error.message)}`));
          break;
        case 'session-warning':
          log(palette.yellow(`session ${event.sessionId}: ${terminalSafe(event.message)}`));
          break;
        case 'finish-step':
          endOpenLines();
          break;
        case 'run-end':
          // A failed last attempt's text was never kept.
          held = [];
          retrying = undefined;
          indicator.stop();
          endOpenLines();
          break;
        default:
          break;
      }
    },
    finish(result: CliRunResult) {
      const summary = [
        result.outcome,
        plural(result.stepCount, 'step'),
        // "1 denied", not "0 tool calls", when the only call was denied.
        ...(result.toolCallCount > 0 || denied === 0 ? [plural(result.toolCallCount, 'tool call')] : []),
        ...(denied > 0 ? [`${denied} denied`] : []),
        ...(unanswered.size > 0 ? [`${unanswered.size} interrupted`] : []),
        plural(result.usage.totalTokens ?? 0, 'token'),
        ...(result.cost !== undefined ? [formatCost(result.cost)] : []),
        `${(result.durationMs / 1000).toFixed(1)} s`,
        ...(result.sessionId !== undefined ? [`session ${result.sessionId}`] : []),
      ].join(' · ');
      unanswered.clear();
      log(result.outcome === 'completed' ? palette.green(summary) : palette.red(summary));
      if (result.error) log(palette.red(`${result.error.kind}: ${terminalSafe(result.error.message)}`));
    },
    info(line: string) {
      log(palette.dim(terminalSafe(line)));
    },
    warn(line: string) {
      log(palette.red(terminalSafe(line)));
    },
    notice(line: string) {
      log(terminalSafe(line));
    },
  };
}

/** The first non-empty line of a tool's input or output, shortened for one log line; ` …` marks more lines. */
function preview(value: unknown): string {
  const text = terminalSafe(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean);
  const first = lines[0] ?? '';
  if (first.length > MAX_PREVIEW) return `${first.slice(0, MAX_PREVIEW)}…`;
  return lines.length > 1 ? `${first} …` : first;
}

/** How big a generated file is, as a person reads it: its bytes (base64 counts four characters for three), or its URL. */
function fileSize(file: GeneratedStepFile): string {
  if (file.data.type === 'url') return `at ${terminalSafe(String(file.data.url))}`;
  const { data } = file.data;
  const bytes = typeof data === 'string' ? Math.floor((data.replace(/=+$/, '').length * 3) / 4) : data.byteLength;
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
