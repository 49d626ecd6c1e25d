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
 * tail; a JSON value too large for the limits is sent as cut JSON text; a
 * `content` output (an MCP tool's text and images) is cut to the same limits
 * by {@link truncateContentOutput}. Denials pass unchanged.
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
    case 'content':
      return truncateContentOutput(output, limits);
    default:
      return output;
  }
}

type ContentOutput = Extract<ToolOutput, { type: 'content' }>;
type ContentPart = ContentOutput['value'][number];

/** What each part of a content output costs besides its text or data, so that thousands of empty parts cannot pass. */
const PART_OVERHEAD_BYTES = 16;

/**
 * Cuts a `content` output (text parts, files and images) to the limits, which
 * all its parts share: the parts are kept in order while they fit; the first
 * text part that does not fit is cut keeping its head and tail (as
 * {@link truncateMiddle}) to what is left, and every part after it is left out.
 * A file or image is never cut: one that does not fit what is left is replaced
 * by a line saying what was left out (its media type and size: base64 data
 * counts as sent), and the parts after it go on being kept while they fit.
 * Parts left out once nothing is left are named by one line. An output within
 * the limits is returned as it is.
 *
 * @example
 * ```ts
 * truncateContentOutput({ type: 'content', value: [{ type: 'text', text: hugeText }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: hugeBase64 } }] }, { maxLines: 2000, maxBytes: 51_200 });
 * // { type: 'content', value: [
 * //   { type: 'text', text: 'head\n[… 98000 lines (99.9 MB) cut here (…) …]\ntail' },
 * //   { type: 'text', text: '[… image/png file (1.3 MB) left out: this tool result is over the 50.0 KB or 2000 lines the model is shown of it …]' },
 * // ] }
 * ```
 */
export function truncateContentOutput(output: ContentOutput, limits: TruncationLimits): ContentOutput {
  const sizes = output.value.map(partSize);
  const total = sizes.reduce((sum, size) => ({ bytes: sum.bytes + size.bytes + PART_OVERHEAD_BYTES, lines: sum.lines + size.lines }), { bytes: 0, lines: 0 });
  if (total.bytes <= limits.maxBytes && total.lines <= limits.maxLines) return output;
  const over = `this tool result is over the ${formatBytes(limits.maxBytes)} or ${limits.maxLines} lines the model is shown of it`;
  let bytesLeft = limits.maxBytes;
  let linesLeft = limits.maxLines;
  const kept: ContentPart[] = [];
  for (const [index, part] of output.value.entries()) {
    const size = sizes[index]!;
    if (size.bytes + PART_OVERHEAD_BYTES <= bytesLeft && size.lines <= linesLeft) {
      kept.push(part);
      bytesLeft -= size.bytes + PART_OVERHEAD_BYTES;
      linesLeft -= size.lines;
      continue;
    }
    let leftOutFrom = index;
    if (part.type === 'text' && bytesLeft > PART_OVERHEAD_BYTES && linesLeft > 0) {
      kept.push({ ...part, text: truncateMiddle(part.text, { maxBytes: bytesLeft - PART_OVERHEAD_BYTES, maxLines: linesLeft }) });
      leftOutFrom = index + 1;
    } else if (part.type !== 'text') {
      const note = `[… ${size.what} (${formatBytes(size.bytes)}) left out: ${over} …]`;
      const noteBytes = utf8ByteLength(note) + PART_OVERHEAD_BYTES;
      if (noteBytes <= bytesLeft && linesLeft > 0) {
        kept.push({ type: 'text', text: note });
        bytesLeft -= noteBytes;
        linesLeft -= 1;
        continue;
      }
    }
    const rest = sizes.slice(leftOutFrom);
    if (rest.length > 0) {
      const bytes = rest.reduce((sum, { bytes: partBytes }) => sum + partBytes, 0);
      const what = rest.length === 1 ? rest[0]!.what : `${rest.length} more parts`;
      kept.push({ type: 'text', text: `[… ${what} (${formatBytes(bytes)}) left out: ${over} …]` });
    }
    break;
  }
  return { ...output, value: kept };
}

/** What a part weighs as sent (text in UTF-8 bytes, data as its base64 text), its lines, and how a note names it. */
function partSize(part: ContentPart): { bytes: number; lines: number; what: string } {
  switch (part.type) {
    case 'text':
      return { bytes: utf8ByteLength(part.text), lines: countLines(part.text), what: 'a text part' };
    case 'file': {
      const what = `${part.mediaType} file${part.filename !== undefined ? ` "${part.filename}"` : ''}`;
      const { data } = part;
      switch (data.type) {
        case 'data':
          return { bytes: typeof data.data === 'string' ? data.data.length : Math.ceil(data.data.byteLength / 3) * 4, lines: 0, what };
        case 'text':
          return { bytes: utf8ByteLength(data.text), lines: countLines(data.text), what };
        case 'url':
          return { bytes: String(data.url).length, lines: 0, what };
        default:
          return { bytes: jsonLength(data), lines: 0, what };
      }
    }
    case 'file-data':
    case 'image-data':
      return { bytes: part.data.length, lines: 0, what: `${part.mediaType} ${part.type === 'image-data' ? 'image' : 'file'}` };
    default:
      return { bytes: jsonLength(part), lines: 0, what: `a ${part.type} part` };
  }
}

function jsonLength(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

function countLines(text: string): number {
  let lines = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
