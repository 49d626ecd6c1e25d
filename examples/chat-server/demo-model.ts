import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Message } from '@ai-sdk/provider';
import { scriptedModel, type ScriptTurn } from 'loopchart/test';

export interface DemoModelOptions {
  /** Pause between streamed words, so the page shows the text arriving. Default 40 ms. */
  chunkDelayMs?: number;
}

/**
 * An offline stand-in for a real model. Every prompt gets the same short
 * conversation — list the notes, save the prompt as a note (which waits for
 * approval), then report what happened — played by the scripted model.
 */
export function demoModel({ chunkDelayMs = 40 }: DemoModelOptions = {}): LanguageModelV4 {
  const modelFor = (options: LanguageModelV4CallOptions) => {
    const turn = { ...nextTurn(options.prompt), chunkDelayMs };
    return scriptedModel([turn], { modelId: 'demo' });
  };
  return {
    specificationVersion: 'v4',
    provider: 'loopchart-demo',
    modelId: 'demo',
    supportedUrls: {},
    doStream: (options) => modelFor(options).doStream(options),
    doGenerate: (options) => modelFor(options).doGenerate(options),
  };
}

function nextTurn(prompt: LanguageModelV4Message[]): ScriptTurn {
  // One assistant message per model call, so this numbers the calls of the whole session.
  const callId = `call-${prompt.filter((message) => message.role === 'assistant').length + 1}`;
  const last = prompt.at(-1);
  if (last?.role !== 'tool') {
    return { text: 'Let me look at your notes first.', toolCalls: [{ id: callId, name: 'list_notes', input: {} }] };
  }
  const result = last.content.find((part) => part.type === 'tool-result');
  if (result?.toolName === 'list_notes') {
    const { titles } = (result.output.type === 'json' ? result.output.value : { titles: [] }) as { titles: string[] };
    const title = titleOf(lastUserText(prompt));
    return {
      text: `You have ${countOf(titles.length, 'note')} so far. I will save this one as “${title}”.`,
      toolCalls: [{ id: callId, name: 'write_note', input: { title, text: lastUserText(prompt) } }],
    };
  }
  if (result?.output.type === 'json') {
    const { saved, noteCount } = result.output.value as { saved: string; noteCount: number };
    return { text: `Saved “${saved}”. Your notebook now holds ${countOf(noteCount, 'note')}.` };
  }
  return { text: 'All right, I did not save the note.' };
}

function lastUserText(prompt: LanguageModelV4Message[]): string {
  const user = prompt.findLast((message) => message.role === 'user');
  return (user?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join(' ').trim();
}

function titleOf(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  const title = words.slice(0, 5).join(' ');
  return words.length > 5 ? `${title}…` : title || 'Untitled';
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
