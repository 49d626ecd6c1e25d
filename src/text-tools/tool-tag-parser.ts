/**
 * Incremental parser for tool calls written in text:
 * `<use_tool><tool_name>NAME</tool_name><arguments>{JSON}</arguments></use_tool>`.
 *
 * Feed it the model's text in whatever chunks it arrives; it returns the text
 * that is certainly not part of a tool call, and each tool call as soon as its
 * block is complete. Text that could still become `<use_tool>` is held back
 * until the next chunk decides it, so a partial tag never reaches the visible
 * text. The result does not depend on how the text was split. Pure: no I/O.
 */
import { readToolArguments, type ToolArgumentsStatus } from './tool-arguments.js';
import {
  ARGUMENTS_CLOSE,
  ARGUMENTS_OPEN,
  TOOL_NAME_CLOSE,
  TOOL_NAME_OPEN,
  USE_TOOL_CLOSE,
  USE_TOOL_OPEN,
} from './tool-protocol-syntax.js';

/** A tool call found in the text. */
export interface TextToolCall {
  toolName: string;
  /** JSON text of the arguments object, or the raw arguments when `argumentsStatus` is `invalid`. */
  input: string;
  argumentsStatus: ToolArgumentsStatus;
}

export type ToolTagEvent = { type: 'text'; text: string } | { type: 'tool-call'; toolCall: TextToolCall };

/**
 * Where the parser is: in plain text, or inside a block before, within or
 * after its arguments. Each block phase collects its own text (the head, the
 * arguments, the whitespace after `</arguments>`).
 */
type Phase =
  | { name: 'text' }
  | { name: 'head' }
  | { name: 'arguments'; head: string; inString: boolean; escaped: boolean }
  | { name: 'tail'; head: string; argumentsText: string };

const LONGEST_BLOCK_TAG = Math.max(USE_TOOL_OPEN.length, ARGUMENTS_OPEN.length, USE_TOOL_CLOSE.length, ARGUMENTS_CLOSE.length);

/**
 * Parses tool-call blocks out of streamed text.
 *
 * @example
 * const parser = new ToolTagParser();
 * parser.feed('Reading it. <use_tool><tool_name>read</tool_name><argu');
 * // [{ type: 'text', text: 'Reading it. ' }]
 * parser.feed('ments>{"path":"a.ts"}</arguments></use_tool>');
 * // [{ type: 'tool-call', toolCall: { toolName: 'read', input: '{"path":"a.ts"}', argumentsStatus: 'valid' } }]
 * parser.flush(); // []
 */
export class ToolTagParser {
  /**
   * Text phase: the held-back text. Block phases: the phase's text not
   * searched yet, and the start of a tag it may end in.
   */
  private pending = '';
  /**
   * Block phases: the phase's text searched already, in pieces, joined once
   * when the phase ends. Each chunk is searched once, not the whole block
   * again: a block streamed in many small chunks costs time in proportion to
   * its length, not its square.
   */
  private scanned: string[] = [];
  private phase: Phase = { name: 'text' };
  /** Set after a block: the whitespace that follows a block goes with it. */
  private skippingWhitespace = false;
  private events: ToolTagEvent[] = [];

  /** Takes the next chunk; returns the text and tool calls it completes, in order. */
  feed(chunk: string): ToolTagEvent[] {
    this.pending += chunk;
    while (this.advance()) {
      // each step consumed a tag or ended a block; keep going until more input is needed
    }
    return this.takeEvents();
  }

  /**
   * Ends the input: held-back text is released, a block whose arguments are
   * complete becomes a tool call, and a block cut off before that is released
   * as the text it was.
   */
  flush(): ToolTagEvent[] {
    const phase = this.phase;
    const phaseText = this.takeScanned() + this.pending;
    const skippingWhitespace = this.skippingWhitespace;
    this.phase = { name: 'text' };
    this.pending = '';
    this.skippingWhitespace = false;
    switch (phase.name) {
      case 'text':
        this.emitText(skippingWhitespace ? phaseText.trimStart() : phaseText);
        break;
      case 'head':
        this.emitText(USE_TOOL_OPEN + phaseText);
        break;
      case 'arguments':
        this.flushUnclosedArguments(phase.head, phaseText);
        break;
      case 'tail':
        this.emitToolCall(phase.head, phase.argumentsText);
        this.emitRest(phaseText);
        break;
    }
    return this.takeEvents();
  }

  /** One step of parsing; false when more input is needed. */
  private advance(): boolean {
    switch (this.phase.name) {
      case 'text':
        return this.advanceInText();
      case 'head':
        return this.advanceInHead();
      case 'arguments':
        return this.advanceInArguments(this.phase);
      case 'tail':
        return this.advanceInTail(this.phase);
    }
  }

  private advanceInText(): boolean {
    if (this.skippingWhitespace) {
      this.pending = this.pending.trimStart();
      if (this.pending === '') return false;
      this.skippingWhitespace = false;
    }
    const open = this.pending.indexOf(USE_TOOL_OPEN);
    if (open !== -1) {
      this.emitText(this.pending.slice(0, open));
      this.enterBlock(this.pending.slice(open + USE_TOOL_OPEN.length));
      return true;
    }
    const held = partialTagLength(this.pending, USE_TOOL_OPEN);
    this.emitText(this.pending.slice(0, this.pending.length - held));
    this.pending = this.pending.slice(this.pending.length - held);
    return false;
  }

  /**
   * Before `<arguments>`: the block either opens its arguments or closes
   * without any. A second `<use_tool>` first means the first was no block (a
   * mention in prose, or a start the model abandoned and wrote again): it is
   * released as text, and the block starts again at the second one.
   */
  private advanceInHead(): boolean {
    const text = this.pending;
    const argumentsOpen = text.indexOf(ARGUMENTS_OPEN);
    const close = text.indexOf(USE_TOOL_CLOSE);
    const reopen = text.indexOf(USE_TOOL_OPEN);
    if (reopen !== -1 && (argumentsOpen === -1 || reopen < argumentsOpen) && (close === -1 || reopen < close)) {
      this.emitText(USE_TOOL_OPEN + this.takeScanned() + text.slice(0, reopen));
      this.enterBlock(text.slice(reopen + USE_TOOL_OPEN.length));
      return true;
    }
    if (argumentsOpen !== -1 && (close === -1 || argumentsOpen < close)) {
      this.phase = { name: 'arguments', head: this.takeScanned() + text.slice(0, argumentsOpen), inString: false, escaped: false };
      this.pending = text.slice(argumentsOpen + ARGUMENTS_OPEN.length);
      return true;
    }
    if (close !== -1) {
      this.emitToolCall(this.takeScanned() + text.slice(0, close), '');
      this.leaveBlock(text.slice(close + USE_TOOL_CLOSE.length));
      return true;
    }
    // The last characters may be the start of a tag the next chunk completes.
    this.keepScanned(text.length - (LONGEST_BLOCK_TAG - 1));
    return false;
  }

  /**
   * Inside the arguments, closing tags count only outside JSON strings, so an
   * argument may itself contain `</arguments>` or `</use_tool>`.
   */
  private advanceInArguments(phase: Extract<Phase, { name: 'arguments' }>): boolean {
    const text = this.pending;
    for (let index = 0; index < text.length; index++) {
      const char = text[index];
      if (phase.inString) {
        if (phase.escaped) phase.escaped = false;
        else if (char === '\\') phase.escaped = true;
        else if (char === '"') phase.inString = false;
        continue;
      }
      if (char === '"') {
        phase.inString = true;
        continue;
      }
      if (char !== '<') continue;
      if (text.startsWith(ARGUMENTS_CLOSE, index)) {
        this.phase = { name: 'tail', head: phase.head, argumentsText: this.takeScanned() + text.slice(0, index) };
        this.pending = text.slice(index + ARGUMENTS_CLOSE.length);
        return true;
      }
      if (text.startsWith(USE_TOOL_CLOSE, index)) {
        this.emitToolCall(phase.head, this.takeScanned() + text.slice(0, index));
        this.leaveBlock(text.slice(index + USE_TOOL_CLOSE.length));
        return true;
      }
      const rest = text.slice(index, index + LONGEST_BLOCK_TAG);
      if (rest.length < LONGEST_BLOCK_TAG && (ARGUMENTS_CLOSE.startsWith(rest) || USE_TOOL_CLOSE.startsWith(rest))) {
        // The `<` is searched again with the next chunk; the string state stands before it.
        this.keepScanned(index);
        return false;
      }
    }
    this.keepScanned(text.length);
    return false;
  }

  /**
   * After `</arguments>` only whitespace and `</use_tool>` belong to the block;
   * anything else means the model left out `</use_tool>`, and the block ends
   * at `</arguments>`.
   */
  private advanceInTail(phase: Extract<Phase, { name: 'tail' }>): boolean {
    const text = this.pending;
    let index = 0;
    while (index < text.length && isWhitespace(text[index]!)) index++;
    const rest = text.slice(index, index + USE_TOOL_CLOSE.length);
    if (rest === USE_TOOL_CLOSE) {
      this.scanned = [];
      this.emitToolCall(phase.head, phase.argumentsText);
      this.leaveBlock(text.slice(index + USE_TOOL_CLOSE.length));
      return true;
    }
    if (USE_TOOL_CLOSE.startsWith(rest)) {
      this.keepScanned(index);
      return false;
    }
    this.emitToolCall(phase.head, phase.argumentsText);
    this.leaveBlock(this.takeScanned() + text);
    return true;
  }

  /**
   * The input ended inside the arguments. A closing tag swallowed by an
   * unterminated JSON string is looked for again, ignoring strings; without
   * one the block was cut off and is released as text.
   */
  private flushUnclosedArguments(head: string, argumentsText: string): void {
    const argumentsClose = argumentsText.indexOf(ARGUMENTS_CLOSE);
    const blockClose = argumentsText.indexOf(USE_TOOL_CLOSE);
    if (argumentsClose === -1 && blockClose === -1) {
      this.emitText(USE_TOOL_OPEN + head + ARGUMENTS_OPEN + argumentsText);
      return;
    }
    if (argumentsClose !== -1 && (blockClose === -1 || argumentsClose < blockClose)) {
      this.emitToolCall(head, argumentsText.slice(0, argumentsClose));
      const afterArguments = argumentsText.slice(argumentsClose + ARGUMENTS_CLOSE.length);
      const closeAfterWhitespace = /^\s*<\/use_tool>/.exec(afterArguments);
      this.emitRest(closeAfterWhitespace ? afterArguments.slice(closeAfterWhitespace[0].length) : afterArguments);
      return;
    }
    this.emitToolCall(head, argumentsText.slice(0, blockClose));
    this.emitRest(argumentsText.slice(blockClose + USE_TOOL_CLOSE.length));
  }

  /** Parses what followed a block recovered at the end of the input. */
  private emitRest(rest: string): void {
    if (rest === '') return;
    const parser = new ToolTagParser();
    parser.skippingWhitespace = true;
    this.events.push(...parser.feed(rest), ...parser.flush());
  }

  private enterBlock(afterOpenTag: string): void {
    this.pending = afterOpenTag;
    this.scanned = [];
    this.phase = { name: 'head' };
  }

  /** Ends the block; `rest` is the text after it. */
  private leaveBlock(rest: string): void {
    this.pending = rest;
    this.scanned = [];
    this.phase = { name: 'text' };
    this.skippingWhitespace = true;
  }

  /** Moves the first `length` characters of `pending` to the text searched already. */
  private keepScanned(length: number): void {
    if (length <= 0) return;
    this.scanned.push(this.pending.slice(0, length));
    this.pending = this.pending.slice(length);
  }

  /** The text searched already in this phase, which is emptied. */
  private takeScanned(): string {
    const text = this.scanned.join('');
    this.scanned = [];
    return text;
  }

  private emitText(text: string): void {
    if (text === '') return;
    const last = this.events[this.events.length - 1];
    if (last?.type === 'text') last.text += text;
    else this.events.push({ type: 'text', text });
  }

  private emitToolCall(head: string, rawArguments: string): void {
    const { input, status } = readToolArguments(rawArguments);
    this.events.push({ type: 'tool-call', toolCall: { toolName: toolNameIn(head), input, argumentsStatus: status } });
  }

  private takeEvents(): ToolTagEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}

/**
 * The tool name between `<tool_name>` and `</tool_name>`; without those tags,
 * whatever text stands before `<arguments>`.
 */
function toolNameIn(head: string): string {
  const start = head.indexOf(TOOL_NAME_OPEN);
  if (start !== -1) {
    const nameStart = start + TOOL_NAME_OPEN.length;
    const end = head.indexOf(TOOL_NAME_CLOSE, nameStart);
    return head.slice(nameStart, end === -1 ? undefined : end).trim();
  }
  return head.replace(/<[^>]*>/g, '').trim();
}

/** Length of the longest end of `text` that is the beginning of `tag` (but not all of it). */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}

function isWhitespace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r';
}
