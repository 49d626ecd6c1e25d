import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { scriptTurnSchema } from '../models/index.js';
import { builtinToolNames } from '../tools/index.js';

const outcomeSchema = z.enum(['completed', 'max-steps', 'doom-loop', 'aborted', 'failed', 'context-limit', 'content-filter', 'timeout', 'denied']);

/**
 * A script file (YAML or JSON): what to ask, with which tools and limits, the
 * scripted model's turns, and what must hold afterwards.
 */
export const scriptSchema = z.strictObject({
  /** The user prompt; several run one after another on the same history. */
  prompt: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  instructions: z.string().optional(),
  /** Built-in tools to enable. Default: all but bash. */
  tools: z.array(z.enum(builtinToolNames as [string, ...string[]])).optional(),
  maxSteps: z.number().int().positive().optional(),
  toolExecution: z.enum(['parallel', 'sequential']).optional(),
  doomLoop: z.union([z.literal(false), z.strictObject({ threshold: z.number().int().min(2).optional() })]).optional(),
  /** Files to create in the workspace before the run (path relative to the workspace: content). */
  files: z.record(z.string(), z.string()).optional(),
  /** The scripted model's turns, one per LLM call. */
  turns: z.array(scriptTurnSchema).min(1),
  /** Checks after the run: the script doubles as a regression test. */
  expect: z
    .strictObject({
      outcome: outcomeSchema.optional(),
      textContains: z.union([z.string(), z.array(z.string())]).optional(),
      files: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

export type Script = z.infer<typeof scriptSchema>;

/** An invalid script: each issue names the field's path and, for YAML, its line. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
  constructor(
    readonly file: string,
    readonly issues: ReadonlyArray<{ path: string; line?: number; message: string }>,
  ) {
    super(
      `Invalid script ${file}:\n${issues
        .map((issue) => `  - ${issue.path}${issue.line !== undefined ? ` (line ${issue.line})` : ''}: ${issue.message}`)
        .join('\n')}`,
    );
  }
}

/** Parses and validates a script's text (YAML is a superset of JSON, so both parse). */
export function parseScript(text: string, file = '<script>'): Script {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new ScriptError(
      file,
      document.errors.map((error) => ({
        path: '(syntax)',
        line: lineCounter.linePos(error.pos[0]).line,
        message: error.message.split('\n')[0] ?? error.message,
      })),
    );
  }
  const parsed = scriptSchema.safeParse(document.toJS());
  if (parsed.success) return parsed.data;
  throw new ScriptError(
    file,
    parsed.error.issues.map((issue) => {
      const path = issue.path.map((key) => (typeof key === 'symbol' ? key.toString() : key));
      const node = nearestNode(document, path);
      return {
        path: path.length > 0 ? path.join('.') : '(script)',
        ...(node !== undefined ? { line: lineCounter.linePos(node).line } : {}),
        message: issue.message,
      };
    }),
  );
}

function nearestNode(document: ReturnType<typeof parseDocument>, path: Array<string | number>): number | undefined {
  for (let length = path.length; length >= 0; length--) {
    const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return node.range[0];
  }
  return undefined;
}

export async function loadScript(file: string): Promise<Script> {
  return parseScript(await readFile(file, 'utf8'), file);
}
