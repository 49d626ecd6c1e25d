import type { AssistantModelMessage, ProviderMetadata } from 'ai';
import type { GeneratedStepFile, StepPart, StepToolCall } from '../core/step.js';
import { withBase64Data } from './base64-file.js';

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];

interface TextBlock {
  type: 'text' | 'reasoning';
  chunks: string[];
  providerMetadata?: ProviderMetadata;
}

type Block =
  | TextBlock
  | { type: 'tool-call'; toolCall: StepToolCall }
  /** A call of a tool the provider ran itself, and its result: both stay in the assistant message. */
  | { type: 'provider-tool-call'; toolCall: StepToolCall }
  | { type: 'provider-tool-result'; part: Extract<StepPart, { type: 'provider-tool-result' }> }
  /** A file the model generated (or one of its reasoning): it stays in the assistant message, where it streamed. */
  | { type: 'file'; file: GeneratedStepFile };

/**
 * Collects one step's parts into the assistant message it will leave in the
 * history. Constant work per chunk: deltas are pushed, and joined once when the
 * message is built.
 */
export class StepAccumulator {
  private readonly blocks: Block[] = [];
  private readonly open = new Map<string, TextBlock>();
  private readonly toolCallIds = new Set<string>();
  /** The block the last delta went to, with its id: the next delta of a stream mostly goes there too. */
  private last: { type: TextBlock['type']; id: string; block: TextBlock } | undefined;
  readonly toolCalls: StepToolCall[] = [];

  /** `earlierIds`: the ids of the tool calls already in the history (see {@link withUniqueId}). */
  constructor(
    private readonly earlierIds: ReadonlySet<string> = new Set(),
    /** How long the history is: the suffix of a call whose id an earlier step used. */
    private readonly historyLength = 0,
  ) {}

  add(part: StepPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        this.startBlock(part.type === 'text-start' ? 'text' : 'reasoning', part.id, part.providerMetadata);
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const last = this.last;
        let block: TextBlock;
        if (last !== undefined && last.type === kind && last.id === part.id) block = last.block;
        else {
          block = this.open.get(`${kind}:${part.id}`) ?? this.startBlock(kind, part.id, undefined);
          this.last = { type: kind, id: part.id, block };
        }
        block.chunks.push(part.text);
        if (part.providerMetadata) block.providerMetadata = { ...block.providerMetadata, ...part.providerMetadata };
        break;
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`;
        const block = this.open.get(key);
        if (block && part.providerMetadata) block.providerMetadata = { ...block.providerMetadata, ...part.providerMetadata };
        this.open.delete(key);
        if (this.last?.block === block) this.last = undefined;
        break;
      }
      case 'tool-call': {
        const toolCall = this.withUniqueId(part.toolCall);
        this.blocks.push({ type: 'tool-call', toolCall });
        this.toolCalls.push(toolCall);
        break;
      }
      case 'provider-tool-call':
        // Kept as the provider named it (its result refers to it), and not one for the machine to run.
        this.toolCallIds.add(part.toolCall.toolCallId);
        this.blocks.push({ type: 'provider-tool-call', toolCall: part.toolCall });
        break;
      case 'provider-tool-result':
        this.blocks.push({ type: 'provider-tool-result', part });
        break;
      case 'file':
      case 'reasoning-file':
        this.blocks.push({ type: 'file', file: part });
        break;
      default:
        break;
    }
  }

  /** The text of the step (all text blocks, in order). */
  text(): string {
    let text = '';
    for (const block of this.blocks) if (block.type === 'text') text += block.chunks.join('');
    return text;
  }

  /** The assistant message for the history, or undefined when the step produced nothing. */
  toMessage(): AssistantModelMessage | undefined {
    const content: AssistantPart[] = [];
    for (const block of this.blocks) {
      if (block.type === 'tool-call' || block.type === 'provider-tool-call') {
        const { toolCall } = block;
        content.push({
          type: 'tool-call',
          toolCallId: toolCall.toolCallId,
          toolName: toolCall.toolName,
          input: toolCall.invalid && (typeof toolCall.input !== 'object' || toolCall.input === null) ? {} : toolCall.input,
          ...(block.type === 'provider-tool-call' ? { providerExecuted: true } : {}),
          ...(toolCall.providerMetadata ? { providerOptions: toolCall.providerMetadata } : {}),
        });
        continue;
      }
      if (block.type === 'provider-tool-result') {
        // The provider's answer to its own call goes in the assistant message, as the AI SDK's `toResponseMessages` puts it.
        const { part } = block;
        content.push({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: part.output,
          ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}),
        });
        continue;
      }
      if (block.type === 'file') {
        content.push(filePart(block.file));
        continue;
      }
      const text = block.chunks.join('');
      if (text.length === 0 && !block.providerMetadata) continue;
      content.push({
        type: block.type,
        text,
        ...(block.providerMetadata ? { providerOptions: block.providerMetadata } : {}),
      });
    }
    return content.length > 0 ? { role: 'assistant', content } : undefined;
  }

  /**
   * A model that repeats a tool-call id within one step (some servers send `call_0` twice) would
   * leave two calls that one result answers: the repeat gets a suffix (`call_0-2`), so every call
   * in the history has exactly one result. A call whose id an earlier step of the history used
   * (servers that number calls per response send `call_0` every step; Anthropic refuses a history
   * whose ids repeat) gets the history's length as its suffix (`call_0-14`), unique from step to
   * step without a search. A call without an id (some servers send `""`) gets `call_14`.
   */
  private withUniqueId(toolCall: StepToolCall): StepToolCall {
    const given = toolCall.toolCallId;
    const base = given === '' ? `call_${this.historyLength}` : this.earlierIds.has(given) ? `${given}-${this.historyLength}` : given;
    const taken = (id: string) => this.toolCallIds.has(id) || this.earlierIds.has(id);
    let id = base;
    for (let n = 2; taken(id); n++) id = `${base}-${n}`;
    this.toolCallIds.add(id);
    return id === given ? toolCall : { ...toolCall, toolCallId: id };
  }

  private startBlock(type: TextBlock['type'], id: string, providerMetadata: ProviderMetadata | undefined): TextBlock {
    const block: TextBlock = { type, chunks: [], ...(providerMetadata ? { providerMetadata } : {}) };
    this.blocks.push(block);
    this.open.set(`${type}:${id}`, block);
    this.last = undefined;
    return block;
  }
}

/**
 * A generated file as the history keeps it: as the AI SDK's `toResponseMessages` writes it, its
 * bytes as base64; a file the provider gave by URL keeps its URL (loopchart downloads nothing).
 */
function filePart(file: GeneratedStepFile): AssistantPart {
  const { data } = withBase64Data(file);
  const content = data.type === 'url' ? data.url : data.data;
  return { type: file.type, data: content, mediaType: file.mediaType, ...(file.providerMetadata ? { providerOptions: file.providerMetadata } : {}) };
}
