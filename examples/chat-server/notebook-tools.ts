import { tool, type ToolSet } from 'ai';
import { z } from 'zod';

/** Where the demo keeps its notes, title to text: in memory (one process) or in Postgres (many workers, see pg-notebook.ts). */
export interface Notebook {
  titles(): Promise<string[]>;
  /** Saves a note, replacing one with the same title; resolves with how many notes there are now. */
  save(title: string, text: string): Promise<number>;
}

/** Notes kept in memory while the process runs. */
export function memoryNotebook(): Notebook {
  const notes = new Map<string, string>();
  return {
    titles: async () => [...notes.keys()],
    save: async (title, text) => {
      notes.set(title, text);
      return notes.size;
    },
  };
}

/** `list_notes` reads the notebook; `write_note` changes it, so the server asks the user before it runs. */
export function notebookTools(notebook: Notebook): ToolSet {
  return {
    list_notes: tool({
      description: 'The titles of the notes saved so far.',
      inputSchema: z.object({}),
      execute: async () => ({ titles: await notebook.titles() }),
    }),
    write_note: tool({
      description: 'Saves a note under a title, replacing a note with the same title.',
      inputSchema: z.object({ title: z.string().min(1), text: z.string() }),
      execute: async ({ title, text }) => ({ saved: title, noteCount: await notebook.save(title, text) }),
    }),
  };
}
