import type { TextStreamPart, ToolSet } from 'ai';
import type { RecordedSteps } from '../results/generate-text-result.js';
import { contentViews, streamBlockIdOf, type AgentStepResult } from '../results/step-result-recorder.js';

type Part = TextStreamPart<ToolSet>;
type Content = AgentStepResult['content'][number];
type ResponseMessage = AgentStepResult['response']['messages'][number];
type TextKind = 'text' | 'reasoning';

interface Block {
  kind: TextKind;
  text: string;
  /** How many steps had finished when the block began: the index of the step it belongs to. */
  step: number;
}

/**
 * What a call's `experimental_transform`s made of its text and reasoning, block by block, and the
 * call's steps rebuilt from it. `streamText` builds its steps, `text`, response messages and
 * callbacks from the transformed parts, so a transform that rewrites text (or drops the reasoning)
 * changes all of them; the run's own steps are built from its events. A block keeps its id through
 * the transforms (`smoothStream` and other re-chunkers keep it); a block the transforms leave out is
 * left out of its step, and one they make up is added at the end of the step it streamed in.
 *
 * @example
 * ```ts
 * const text = new TransformedText();
 * for await (const part of transformed) text.observe(part);
 * const { steps } = text.rebuild(recorder); // steps[0].text as the transforms wrote it
 * ```
 */
export class TransformedText {
  private readonly blocks = new Map<string, Block>();
  /** The blocks the agent's own stream had, before the transforms: the others the transforms made up. */
  private readonly sourceBlocks = new Set<string>();
  private finishedSteps = 0;

  /** Takes one part the transforms are given (the agent's own), in order. */
  source(part: Part): void {
    if (part.type === 'text-start' || part.type === 'reasoning-start') this.sourceBlocks.add(part.id);
  }

  /** Takes one part of the transformed stream, in order. */
  observe(part: Part): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        this.block(part.id, part.type === 'text-start' ? 'text' : 'reasoning');
        break;
      case 'text-delta':
      case 'reasoning-delta':
        this.block(part.id, part.type === 'text-delta' ? 'text' : 'reasoning').text += part.text;
        break;
      case 'finish-step':
        this.finishedSteps++;
        break;
      default:
        break;
    }
  }

  /** The steps, their response messages and usage with each step's text and reasoning as the transforms gave them. */
  rebuild(recorded: RecordedSteps): RecordedSteps {
    const madeUp = this.madeUpBlocks();
    const steps = recorded.steps.map((step, index) => this.rebuildStep(step, madeUp.get(index) ?? []));
    const changed = steps.some((step, index) => step !== recorded.steps[index]);
    if (!changed) return recorded;
    const initial = recorded.responseMessages.slice(0, recorded.responseMessages.length - recorded.steps.flatMap((step) => step.response.messages).length);
    return { steps, totalUsage: recorded.totalUsage, responseMessages: [...initial, ...steps.flatMap((step) => step.response.messages)] };
  }

  /** Step `index` of the steps, with its text and reasoning as the transforms gave them (its `response.messages` as far as they are recorded). */
  step(recorded: RecordedSteps, index: number): AgentStepResult | undefined {
    const step = recorded.steps[index];
    return step && this.rebuildStep(step, this.madeUpBlocks().get(index) ?? []);
  }

  /**
   * The blocks the transforms made up, by the step they streamed in. A block of the agent's own that
   * no step has is an attempt's that failed and was tried again: it belongs to no step.
   */
  private madeUpBlocks(): Map<number, Block[]> {
    const byStep = new Map<number, Block[]>();
    for (const [id, block] of this.blocks) {
      if (this.sourceBlocks.has(id)) continue;
      const list = byStep.get(block.step);
      if (list) list.push(block);
      else byStep.set(block.step, [block]);
    }
    return byStep;
  }

  private block(id: string, kind: TextKind): Block {
    let block = this.blocks.get(id);
    if (block === undefined) {
      block = { kind, text: '', step: this.finishedSteps };
      this.blocks.set(id, block);
    }
    return block;
  }

  private rebuildStep(step: AgentStepResult, madeUp: Block[]): AgentStepResult {
    /** For each text or reasoning part of the step, in order: what the transforms made of it (undefined: left out). */
    const replacements: Array<Content | undefined> = [];
    let changed = madeUp.length > 0;
    const content: Content[] = [];
    for (const part of step.content) {
      const id = streamBlockIdOf(part);
      if (id === undefined || (part.type !== 'text' && part.type !== 'reasoning')) {
        content.push(part);
        continue;
      }
      const block = this.blocks.get(id);
      const replacement = block === undefined ? undefined : block.text === part.text ? part : { ...part, text: block.text };
      if (replacement !== part) changed = true;
      replacements.push(replacement);
      if (replacement !== undefined) content.push(replacement);
    }
    if (!changed) return step;
    const added = madeUp.map((block): Content => ({ type: block.kind, text: block.text }));
    content.push(...added);
    return {
      ...step,
      content,
      ...contentViews(content),
      response: { ...step.response, messages: rewrittenMessages(step.response.messages, replacements, added) },
    } as AgentStepResult;
  }
}

/**
 * The step's response messages with the text and reasoning parts of its assistant message replaced,
 * in order, by what the transforms made of the step's blocks, and the blocks they made up added at
 * its end. The history's parts are the blocks in the order they streamed; when their number is not
 * the step's, the messages are left as the run wrote them.
 */
function rewrittenMessages(messages: ResponseMessage[], replacements: Array<Content | undefined>, added: Content[]): ResponseMessage[] {
  const isText = (part: { type: string }) => part.type === 'text' || part.type === 'reasoning';
  const assistant = messages.findIndex((message) => message.role === 'assistant' && Array.isArray(message.content));
  const message = messages[assistant];
  if (message === undefined || message.role !== 'assistant' || !Array.isArray(message.content)) return messages;
  if (message.content.filter(isText).length !== replacements.length) return messages;
  let next = 0;
  const content = message.content.flatMap((part) => {
    if (!isText(part)) return [part];
    const replacement = replacements[next++];
    return replacement === undefined ? [] : [{ ...part, text: (replacement as { text: string }).text }];
  });
  for (const part of added) content.push({ type: part.type as TextKind, text: (part as { text: string }).text });
  return messages.map((each, index) => (index === assistant ? { ...message, content } : each));
}
