import type { Agent } from 'loopchart';

/** What a session id may look like: the file store's rule, so an id is never a path. */
const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

/**
 * The agents of the sessions this process has served, by session id. A session
 * not served yet is opened from the store (so one written by an earlier
 * process continues its history) the first time a chat request names it.
 */
export class ChatSessions {
  private readonly agents = new Map<string, Promise<Agent>>();

  constructor(private readonly createSessionAgent: (sessionId: string) => Agent) {}

  /** The session's agent, loaded from the store or started. */
  open(sessionId: string): Promise<Agent> {
    let opening = this.agents.get(sessionId);
    if (!opening) {
      const agent = this.createSessionAgent(sessionId);
      opening = agent.ready().then(() => agent);
      // A session that failed to load is not kept: the next request tries again.
      opening.catch(() => this.agents.delete(sessionId));
      this.agents.set(sessionId, opening);
    }
    return opening;
  }

  /** The agent of a session this process has opened, or undefined. */
  find(sessionId: string): Promise<Agent> | undefined {
    return this.agents.get(sessionId);
  }

  /** Aborts every active run, so that open streams end. */
  async abortAll(reason: string): Promise<void> {
    const agents = await Promise.allSettled(this.agents.values());
    for (const settled of agents) if (settled.status === 'fulfilled') settled.value.abort(reason);
  }
}
