import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { scriptTurnSchema } from '../test/index.js';
import { builtinToolNames } from '../tools/index.js';
import { permissionRuleProblem } from './permission-rule.js';
import { UsageError } from './usage-error.js';

/** Rules as `--allow` and `--deny` take them: a tool-name glob, or `bash(git *)`, `write(src/**)`. */
const toolGlobs = z
  .array(
    z.string().superRefine((rule, context) => {
      const problem = permissionRuleProblem(rule);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
  )
  .min(1);

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
  /** A budget in US dollars at list prices (`isCostOver`); needs a model with a price (`--model`). `--max-cost` overrides it. */
  maxCost: z.number().positive().optional(),
  toolExecution: z.enum(['parallel', 'sequential']).optional(),
  /** `action: ask` asks (see `approval`) about a call that repeats instead of ending the run. */
  doomLoop: z
    .union([z.literal(false), z.strictObject({ threshold: z.number().int().min(2).optional(), action: z.enum(['stop', 'ask']).optional() })])
    .optional(),
  /** Which tool calls need approval: tool-name globs; deny rules first, then ask, then allow; `default` for the rest (allow). */
  approval: z
    .strictObject({
      deny: toolGlobs.optional(),
      ask: toolGlobs.optional(),
      allow: toolGlobs.optional(),
      default: z.enum(['allow', 'deny', 'ask']).optional(),
    })
    .optional(),
  /** What a denied call does: the model is told and goes on (`continue`, default), or the run ends `denied` (`stop`). */
  onDeny: z.enum(['continue', 'stop']).optional(),
  /** bash's sandbox keeps the network (as `--allow-network`). Default false: no network. */
  allowNetwork: z.boolean().optional(),
  /** Files to create in the workspace before the run (path relative to the workspace: content). */
  files: z.record(z.string(), z.string()).optional(),
  /**
   * What tools that are not run here answered, by tool call id (`loopchart script` writes them for
   * every tool but the file tools): a tool named here is replayed from these results, not run. Each
   * output is the result as the model was sent it (the AI SDK's tool result output: `text`, `json`,
   * `error-text`, …).
   */
  toolResults: z.record(z.string().min(1), z.strictObject({ tool: z.string().min(1), output: z.looseObject({ type: z.string() }) })).optional(),
  /** The scripted model's turns, one per LLM call. Required unless the script is run with `--model`, which ignores them. */
  turns: z.array(scriptTurnSchema).min(1).optional(),
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
  let data: unknown;
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
  try {
    // Aliases are expanded at most 100 times: a "billion laughs" document is an invalid script, not an out-of-memory crash.
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new ScriptError(file, [{ path: '(syntax)', message: error instanceof Error ? error.message : String(error) }]);
  }
  const parsed = scriptSchema.safeParse(data);
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

/**
 * The largest script file read: 4 MiB. Parsing YAML costs far more than the
 * file (a dense 1.3 MB script takes 400 MB and seconds), and a 200 MB file
 * ran the process out of memory instead of saying why.
 */
export const MAX_SCRIPT_BYTES = 4 * 1024 * 1024;

/**
 * Reads and validates a script file.
 *
 * @example
 * const script = await loadScript('examples/demo.yaml');
 * @throws UsageError when it is not a regular file or is larger than `MAX_SCRIPT_BYTES`;
 *   ScriptError when it is not a valid script.
 */
export async function loadScript(file: string): Promise<Script> {
  // Without blocking: a FIFO is refused below instead of waited on.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UsageError(`script ${file} is not a regular file`);
    const tooLarge = (size: string) => new UsageError(`script ${file} is ${size}: a script may be at most ${MAX_SCRIPT_BYTES / (1024 * 1024)} MiB`);
    if (stats.size > MAX_SCRIPT_BYTES) throw tooLarge(`${(stats.size / (1024 * 1024)).toFixed(1)} MiB`);
    // Read at most one byte more than allowed: the file may have grown since.
    const buffer = Buffer.alloc(MAX_SCRIPT_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_SCRIPT_BYTES) throw tooLarge(`over ${MAX_SCRIPT_BYTES / (1024 * 1024)} MiB`);
    }
    return parseScript(buffer.toString('utf8', 0, length), file);
  } finally {
    await handle.close();
  }
}
