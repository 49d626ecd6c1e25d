const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** Why a system message is refused in a prompt or a history: there, every later model call would fail with it. */
export const SYSTEM_IN_HISTORY =
  "a system message cannot join the history (the AI SDK refuses one there, so every later run would fail): give it as the agent's instructions (createAgent({ instructions })) or, for one step, through prepareStep";

/**
 * What is wrong with `value` as a `ModelMessage`, checked by shape only — a
 * role and string or part-array content whose parts have a `type` — so that it
 * costs the same for a long message as for a short one; undefined when
 * nothing is. The AI SDK checks every part in depth when the history is sent.
 * Pure.
 *
 * @example
 * messageShapeProblem({ role: 'user', content: 'hi' }) // undefined
 * messageShapeProblem({ role: 'robot', content: 'hi' }) // 'its role must be one of …'
 */
export function messageShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `expected a message object, got ${describe(value)}`;
  const { role, content } = value as { role?: unknown; content?: unknown };
  if (typeof role !== 'string' || !ROLES.has(role)) return `its role must be one of system, user, assistant, tool (got ${describe(role)})`;
  if (typeof content !== 'string' && !Array.isArray(content)) return `its content must be a string or an array of parts (got ${describe(content)})`;
  if (Array.isArray(content) && content.some((part) => typeof part !== 'object' || part === null || typeof (part as { type?: unknown }).type !== 'string')) {
    return 'every part of its content must be an object with a type';
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value;
}
