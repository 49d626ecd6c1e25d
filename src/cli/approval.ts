import type { Agent } from '../agent.js';
import type { ApprovalPolicy, ApprovalRules } from '../approval/approval-policy.js';
import type { AgentEvent } from '../core/events.js';
import { pendingApprovalRequests } from '../machine/pending-approval-requests.js';
import type { AgentOptions } from '../options.js';
import type { PermissionMode } from './permissions.js';

/**
 * How `loopchart run` answers a tool call that asks for approval: `--yes`
 * approves every one; `--permission-mode deny` denies every one
 * (`deny-all`); otherwise a terminal asks the user, and anything else
 * (a pipe, CI) denies with a message that names `--yes`.
 */
export type ApprovalMode = 'approve-all' | 'ask' | 'deny' | 'deny-all';

export function approvalMode({ yes, interactive, permissionMode = 'ask' }: { yes: boolean; interactive: boolean; permissionMode?: PermissionMode }): ApprovalMode {
  if (yes) return 'approve-all';
  if (permissionMode === 'deny') return 'deny-all';
  return interactive ? 'ask' : 'deny';
}

/** Which calls ask, for a prompt run: the tools that change files or run commands. Scripts bring their own `approval` rules. */
export const PROMPT_APPROVAL_RULES: ApprovalRules = { ask: ['write', 'edit', 'bash'] };

/** A script's rules when a real model runs it: the prompt run's asks added, so no allow rule skips them (`--yes` still approves). */
export function withRealModelRules(rules: ApprovalRules | undefined): ApprovalRules {
  return { ...rules, ask: [...(rules?.ask ?? []), ...(PROMPT_APPROVAL_RULES.ask ?? [])] };
}

/** The `createAgent` approval options: the policy that makes calls ask (or deny), and what a denial does. */
export function approvalOptions(rules: ApprovalPolicy | undefined, onDeny: 'continue' | 'stop' | undefined): Partial<AgentOptions> {
  return { ...(rules ? { approval: rules } : {}), ...(onDeny ? { onDeny } : {}) };
}

export type ApprovalRequest = Extract<AgentEvent, { type: 'approval-request' }>;

/** Asks the user about one call; resolves true for yes. Rejects (and asks no more) once `signal` aborts. */
export type AskUser = (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;

export interface ApprovalAnswererOptions {
  agent: Pick<Agent, 'events$' | 'approve' | 'deny'>;
  /** Calls that already wait for an answer (a resumed session that stopped in awaitingApproval): answered first, once known. */
  waiting?: readonly ApprovalRequest[] | Promise<readonly ApprovalRequest[]>;
  mode: ApprovalMode;
  /** How to ask in `ask` mode (a terminal prompt). */
  askUser?: AskUser;
  /** A line for people (approved calls). */
  info: (line: string) => void;
  /** A line everyone must see (denied calls). */
  warn: (line: string) => void;
}


/**
 * Answers every `approval-request` the agent emits, according to `mode`, one
 * request at a time (so terminal questions do not overlap). Returns a function
 * that stops answering and cancels a question still on screen.
 */
export function answerApprovals({ agent, waiting = [], mode, askUser, info, warn }: ApprovalAnswererOptions): () => void {
  const stopped = new AbortController();
  let queue = Promise.resolve();

  const answer = async (request: ApprovalRequest) => {
    const call = `${request.toolName} ${JSON.stringify(request.input)}`;
    const why = request.reason === 'doom-loop' ? ' (repeated call: doom loop)' : '';
    let approved: boolean;
    if (mode === 'approve-all') approved = true;
    else if (mode === 'deny' || mode === 'deny-all' || !askUser) approved = false;
    else approved = await askUser(request, stopped.signal);
    if (stopped.signal.aborted) return;
    if (approved) {
      if (mode === 'approve-all') info(`approved by --yes: ${call}${why}`);
      agent.approve(request.toolCallId);
    } else if (mode === 'deny-all') {
      warn(`denied: ${call}${why}: it needs approval and --permission-mode deny denies such calls`);
      agent.deny(request.toolCallId, 'calls that need approval are denied in this run (loopchart --permission-mode deny)');
    } else if (mode === 'ask' && askUser) {
      warn(`denied: ${call}${why}`);
      agent.deny(request.toolCallId, 'the user declined it');
    } else {
      warn(`denied: ${call}${why}: it needs approval and there is no terminal to ask; run with --yes to approve such calls`);
      agent.deny(request.toolCallId, 'no one could approve it (loopchart runs without a terminal and without --yes)');
    }
  };

  const enqueue = (request: ApprovalRequest) => {
    // Answer after the event has been delivered, once the agent waits in awaitingApproval.
    queue = queue.then(() => new Promise((resolve) => setImmediate(resolve))).then(() => answer(request).catch(() => {}));
  };
  void Promise.resolve(waiting).then((requests) => requests.forEach(enqueue), () => {});
  const subscription = agent.events$.subscribe((event) => {
    if (event.type === 'approval-request') enqueue(event);
  });
  return () => {
    stopped.abort();
    subscription.unsubscribe();
  };
}

/**
 * The approval requests an agent waits on right now. A restored session reports its waiting
 * requests again as it opens, so `answerApprovals` hears of them by itself; this is for an
 * answerer that subscribes later.
 *
 * @example
 * await agent.ready();
 * answerApprovals({ agent, waiting: waitingApprovals(agent), mode, info, warn });
 */
export function waitingApprovals(agent: Pick<Agent, 'actor' | 'pendingApprovals'>): ApprovalRequest[] {
  if (agent.pendingApprovals.length === 0) return [];
  return pendingApprovalRequests(agent.actor.getSnapshot().context);
}
