import type { ToolResultPart } from 'ai';
import { truncateHead, truncateTail, utf8ByteLength, type TruncationLimits } from '../tools/truncate.js';

type ToolOutput = ToolResultPart['output'];

/** What the model sees of a tool result at most; `tools` overrides it per tool name. */
export interface TruncationConfig extends TruncationLimits {
  tools?: Record<string, Partial<TruncationLimits>>;
}

export const defaultTruncationConfig: TruncationConfig = { maxLines: 2000, maxBytes: 50 * 1024 };

/**
 * Cuts `text` to the limits keeping its head and its tail (half of each limit
 * each), with a marker in between that says how much was cut and where.
 */
export function truncateMiddle(text: string, limits: TruncationLimits): string {
  if (utf8ByteLength(text) <= limits.maxBytes && countLines(text) <= limits.maxLines) return text;
  const half = { maxLines: Math.max(1, Math.floor(limits.maxLines / 2)), maxBytes: Math.max(1, Math.floor(limits.maxBytes / 2)) };
  const head = truncateHead(text, half);
  const tail = truncateTail(text, half);
  const cutLines = Math.max(0, head.totalLines - head.shownLines - tail.shownLines);
  const cutBytes = Math.max(0, head.totalBytes - head.shownBytes - tail.shownBytes);
  const where = cutLines > 0 ? `lines ${head.lastShownLine + 1}-${tail.firstShownLine - 1}` : 'within a long line';
  const marker = `[… ${cutLines} lines (${formatBytes(cutBytes)}) cut here (${where}) of ${head.totalLines} lines (${formatBytes(head.totalBytes)}) …]`;
  return `${head.text}\n${marker}\n${tail.text}`;
}

/** Limits for one tool: the per-tool override on top of the defaults. */
export function limitsFor(config: TruncationConfig, toolName: string): TruncationLimits {
  const override = config.tools?.[toolName];
  return { maxLines: override?.maxLines ?? config.maxLines, maxBytes: override?.maxBytes ?? config.maxBytes };
}

/**
 * Cuts what the model will see of a tool result. Text is cut keeping head and
 * tail; a JSON value too large for the limits is sent as cut JSON text.
 * Other output kinds (content parts, denials) pass unchanged.
 */
export function truncateToolOutput(output: ToolOutput, limits: TruncationLimits): ToolOutput {
  switch (output.type) {
    case 'text':
    case 'error-text': {
      const value = truncateMiddle(output.value, limits);
      return value === output.value ? output : { ...output, value };
    }
    case 'json':
    case 'error-json': {
      // Measured and cut as the AI SDK sends it: JSON.stringify without indentation.
      const json = JSON.stringify(output.value) ?? 'null';
      const value = truncateMiddle(json, limits);
      if (value === json) return output;
      return { type: output.type === 'json' ? 'text' : 'error-text', value };
    }
    default:
      return output;
  }
}

function countLines(text: string): number {
  let lines = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
