import type { AgentEvent } from '../events.js';
import type { RunResult } from '../result.js';
import type { Reporter, ReporterOptions } from './reporter.js';

const MAX_PREVIEW = 120;

/**
 * Output for people: the assistant's text streams to stdout as it arrives;
 * reasoning (dimmed), tool calls, their results, the spinner for tools still
 * running, and the closing summary go to stderr, so `> answer.txt` keeps only
 * the answer.
 */
export function humanReporter({ stdout, stderr, palette, indicator }: ReporterOptions): Reporter {
  let textOpen = false;
  let reasoningOpen = false;

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
      switch (event.type) {
        case 'text-delta':
          if (reasoningOpen) stderr.write('\n');
          reasoningOpen = false;
          if (event.text.length === 0) break;
          stdout.write(event.text);
          textOpen = !event.text.endsWith('\n');
          break;
        case 'reasoning-delta':
          if (event.text.length === 0) break;
          stderr.write(palette.dim(event.text));
          reasoningOpen = !event.text.endsWith('\n');
          break;
        case 'tool-call':
          log(palette.cyan(`→ ${event.toolName} ${preview(event.input)}${event.invalid ? ' (invalid input)' : ''}`));
          indicator.add(event.toolCallId, event.toolName);
          break;
        case 'tool-result': {
          indicator.remove(event.toolCallId);
          const line = `${event.isError ? '✗' : '✓'} ${event.toolName} (${Math.round(event.durationMs)} ms) ${preview(event.output)}`;
          log(event.isError ? palette.red(line) : palette.green(line));
          break;
        }
        case 'approval-request':
          // The step's calls wait for an answer, maybe a question on this terminal: no spinner may draw over it.
          indicator.stop();
          break;
        case 'retry':
          log(palette.yellow(`retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}) after ${event.error.kind}: ${event.error.message}`));
          break;
        case 'step-end':
          endOpenLines();
          break;
        case 'run-end':
          indicator.stop();
          endOpenLines();
          break;
        default:
          break;
      }
    },
    finish(result: RunResult) {
      const summary = [
        result.outcome,
        `${result.steps} step${result.steps === 1 ? '' : 's'}`,
        `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`,
        `${result.usage.totalTokens} tokens`,
        `${(result.durationMs / 1000).toFixed(1)} s`,
      ].join(' · ');
      log(result.outcome === 'completed' ? palette.green(summary) : palette.red(summary));
      if (result.error) log(palette.red(`${result.error.kind}: ${result.error.message}`));
    },
    info(line: string) {
      log(palette.dim(line));
    },
    warn(line: string) {
      log(palette.red(line));
    },
    notice(line: string) {
      log(line);
    },
  };
}

/** The first non-empty line of a tool's input or output, shortened for one log line; ` …` marks more lines. */
function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean);
  const first = lines[0] ?? '';
  if (first.length > MAX_PREVIEW) return `${first.slice(0, MAX_PREVIEW)}…`;
  return lines.length > 1 ? `${first} …` : first;
}
