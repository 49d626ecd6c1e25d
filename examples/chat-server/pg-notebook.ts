import type pg from 'pg';
import type { Notebook } from './notebook-tools.js';

/** The demo's notes in Postgres, so that every worker of the scaled-out example sees the same notebook. */
export function pgNotebook(pool: pg.Pool): Notebook {
  let ready: Promise<unknown> | undefined;
  const table = () => (ready ??= pool.query('CREATE TABLE IF NOT EXISTS chat_notes (title text PRIMARY KEY, text text NOT NULL)'));
  return {
    async titles() {
      await table();
      const { rows } = await pool.query<{ title: string }>('SELECT title FROM chat_notes ORDER BY title');
      return rows.map((row) => row.title);
    },
    async save(title, text) {
      await table();
      await pool.query('INSERT INTO chat_notes (title, text) VALUES ($1, $2) ON CONFLICT (title) DO UPDATE SET text = EXCLUDED.text', [title, text]);
      const { rows } = await pool.query<{ count: string }>('SELECT count(*) FROM chat_notes');
      return Number(rows[0]!.count);
    },
  };
}
