/**
 * What a soak prompt asks of the worker's model, written into the prompt's text so that any
 * worker, restoring the session from the store, gives the same answer: `soak <tag> tools=<n>
 * ask=<k> ms=<ms>` — `n` tool calls one after another, the `k`th needing approval (0: none),
 * each working `ms` milliseconds, then a text. The tag (`<sessionId>/<counter><suffix>`) is unique
 * in the soak, so the soak can count how often the message is in the session's history.
 *
 * @example
 * const text = planText({ tag: 's03/2', tools: 2, ask: 1, toolMs: 300 }); // 'soak s03/2 tools=2 ask=1 ms=300'
 * parsePlan(text); // { tag: 's03/2', tools: 2, ask: 1, toolMs: 300 }
 */
export interface SoakPlan {
  tag: string;
  tools: number;
  ask: number;
  toolMs: number;
}

const PLAN = /^soak (\S+) tools=(\d+) ask=(\d+) ms=(\d+)$/;

export function planText(plan: SoakPlan): string {
  return `soak ${plan.tag} tools=${plan.tools} ask=${plan.ask} ms=${plan.toolMs}`;
}

/** The plan a message's text states, or undefined for any other text. */
export function parsePlan(text: string): SoakPlan | undefined {
  const match = PLAN.exec(text);
  if (!match) return undefined;
  return { tag: match[1]!, tools: Number(match[2]), ask: Number(match[3]), toolMs: Number(match[4]) };
}

/** The session a tag belongs to. */
export function sessionOfTag(tag: string): string {
  return tag.split('/')[0]!;
}

/** The id the worker's model gives the `n`th tool call (1-based) of the run that `tag` started. */
export function toolCallIdOf(tag: string, n: number): string {
  return `${tag}.c${n}`;
}
