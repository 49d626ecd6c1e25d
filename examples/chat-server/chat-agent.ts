import type { LanguageModel } from 'ai';
import type { AgentOptions } from 'loopchart';
import { notebookTools, type Notebook } from './notebook-tools.js';

const INSTRUCTIONS =
  'You keep notes for the user. Look at the existing notes with list_notes, save new ones with write_note ' +
  '(the user approves each write), and answer in one or two sentences.';

/** The chat's agent, the same in the one-process server and on every worker of the scaled-out one. */
export function chatAgentOptions(model: LanguageModel, notebook: Notebook): AgentOptions {
  return { model, instructions: INSTRUCTIONS, tools: notebookTools(notebook), approval: { ask: ['write_note'] }, maxSteps: 10 };
}
