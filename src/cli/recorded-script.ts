import { Document } from 'yaml';
import type { ApprovalRules } from '../approval/approval-policy.js';
import type { ScriptTurn } from '../test/index.js';
import type { Outcome } from '../core/result.js';
import { scriptSchema, type Script } from './script.js';

/** What `loopchart run --record` saw: how the run was set up, and every answer of the model. */
export interface RecordedRun {
  /** The prompts, in the order they ran. */
  prompts: string[];
  /** The script that was run, if one was: its instructions, limits, rules and files are kept. */
  script?: Script;
  /** The system prompt the run sent (`--system`, `--agents-md`, …), when it differs from the script's. Default: the script's. */
  instructions?: string;
  /** The tools the model had. */
  tools: readonly string[];
  maxSteps?: number;
  /** The approval rules the run used (a prompt run asks before write, edit and bash). */
  approval?: ApprovalRules;
  /** One per model call, in order (from `recordModel`). */
  turns: ScriptTurn[];
  /** How the (last) run ended: the replay is expected to end the same way. Absent: no expectation. */
  outcome?: Outcome;
  /** Which model answered, for the header comment. */
  model: string;
  recordedAt: Date;
}

/**
 * A recorded run as the text of a script file (YAML): `loopchart run FILE`
 * replays it offline on the scripted model, and its `expect.outcome` checks
 * that the replay ends as the recording did.
 *
 * @example
 * const yaml = recordedScript({ prompts: ['Hi'], tools: ['read'], turns: recording.turns(), outcome: 'completed', model: 'openai:gpt-4o-mini', recordedAt: new Date() });
 * await writeFile('hi.yaml', yaml); // then: loopchart run hi.yaml
 * @throws Error when the run made no model call (a script needs at least one turn).
 */
export function recordedScript(run: RecordedRun): string {
  if (run.turns.length === 0) throw new Error('nothing to record: the model was never called');
  const { script } = run;
  const fields: Script = scriptSchema.parse({
    prompt: run.prompts.length === 1 ? run.prompts[0] : run.prompts,
    ...((run.instructions ?? script?.instructions) !== undefined ? { instructions: run.instructions ?? script?.instructions } : {}),
    tools: [...run.tools],
    ...(run.maxSteps !== undefined ? { maxSteps: run.maxSteps } : {}),
    ...(script?.toolExecution !== undefined ? { toolExecution: script.toolExecution } : {}),
    ...(script?.doomLoop !== undefined ? { doomLoop: script.doomLoop } : {}),
    ...(run.approval !== undefined ? { approval: scriptApprovalRules(run.approval) } : {}),
    ...(script?.onDeny !== undefined ? { onDeny: script.onDeny } : {}),
    ...(script?.files !== undefined ? { files: script.files } : {}),
    turns: run.turns,
    ...(run.outcome !== undefined ? { expect: { outcome: run.outcome } } : {}),
  });
  const document = new Document(fields);
  document.commentBefore = [
    ` Recorded by loopchart run --record on ${run.recordedAt.toISOString()}, answered by ${run.model}.`,
    ' Replay it offline, without the model: loopchart run <this file>',
    " (the workspace is not recorded, only a script's files: give --cwd to run the tools on the same files).",
  ].join('\n');
  return document.toString();
}

/** Approval rules as a script writes them: tool-name globs (a rule's `when` function cannot be written down; its tool still asks). */
function scriptApprovalRules(rules: ApprovalRules): Script['approval'] {
  const globs = (list: ApprovalRules['ask']) => list?.map((rule) => (typeof rule === 'string' ? rule : rule.tool));
  const { deny, ask, allow } = { deny: globs(rules.deny), ask: globs(rules.ask), allow: globs(rules.allow) };
  return {
    ...(deny?.length ? { deny } : {}),
    ...(ask?.length ? { ask } : {}),
    ...(allow?.length ? { allow } : {}),
    ...(rules.default !== undefined ? { default: rules.default } : {}),
  };
}
