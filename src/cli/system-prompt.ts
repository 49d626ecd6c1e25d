/** A project instruction file read by `--agents-md`: its name in the workspace and its text. */
export interface ProjectInstructions {
  name: string;
  content: string;
}

/** Where the system prompt of a `loopchart run` comes from. */
export interface SystemPromptSources {
  /** The script's `instructions`. */
  script?: string;
  /** `--system TEXT`, or the text of `--system-file FILE`: it replaces the script's. */
  replacement?: string;
  /** The project's instruction files (`--agents-md`), in order, after the base prompt. */
  project?: readonly ProjectInstructions[];
  /** `--append-system TEXT`: last. */
  append?: string;
}

/**
 * The system prompt a run sends: the base (`--system` or `--system-file`, else
 * the script's `instructions`), then each project file under a line naming it,
 * then `--append-system`, separated by blank lines. Undefined when there is
 * nothing to send.
 *
 * @example
 * composeInstructions({ script: 'Be brief.', append: 'Answer in French.' }) // "Be brief.\n\nAnswer in French."
 * composeInstructions({ project: [{ name: 'AGENTS.md', content: 'Run npm test.' }] })
 * // "Instructions from AGENTS.md in the workspace:\n\nRun npm test."
 */
export function composeInstructions({ script, replacement, project = [], append }: SystemPromptSources): string | undefined {
  const parts = [
    replacement ?? script,
    ...project.map((file) => `Instructions from ${file.name} in the workspace:\n\n${file.content.trim()}`),
    append,
  ].filter((part): part is string => part !== undefined && part.trim() !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
