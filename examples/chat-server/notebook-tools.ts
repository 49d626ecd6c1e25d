import { tool, type ToolSet } from 'ai';
import { z } from 'zod';

/** The demo's notes, title to text, kept in memory while the server runs. */
export type Notebook = Map<string, string>;

/** `list_notes` reads the notebook; `write_note` changes it, so the server asks the user before it runs. */
export function notebookTools(notebook: Notebook): ToolSet {
  return {
    list_notes: tool({
      description: 'The titles of the notes saved so far.',
      inputSchema: z.object({}),
      execute: async () => ({ titles: [...notebook.keys()] }),
    }),
    write_note: tool({
      description: 'Saves a note under a title, replacing a note with the same title.',
      inputSchema: z.object({ title: z.string().min(1), text: z.string() }),
      execute: async ({ title, text }) => {
        notebook.set(title, text);
        return { saved: title, noteCount: notebook.size };
      },
    }),
  };
}
