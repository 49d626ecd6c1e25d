import type { ModelMessage, ToolSet } from 'ai';
import { generateId } from 'ai';
import { Subject } from 'rxjs';
import { readSessionView, type AgentEvent, type Prompt, type RunResult, type SessionStore } from 'loopchart';
import type { RunnableAgent } from 'loopchart/ai-sdk';
import type { SessionClient } from 'loopchart/dbos';
import { readSessionEvents, type RedisClient } from 'loopchart/redis';

/**
 * A session seen from a web node that runs no agent: `run` sends the prompt to
 * the session's queue (any worker takes it), `abort` reaches the worker that
 * runs it, and `events$` are the workers' events from Redis, from the moment
 * the agent was made. Enough for `toAISDKAgent`, so the page gets the same UI
 * message stream as from the one-process server. `close()` ends the reading.
 */
export async function remoteSessionAgent(options: {
  sessionId: string;
  store: SessionStore;
  sessions: SessionClient;
  /** A Redis connection of its own (blocking reads); closed by `close()`. */
  reader: RedisClient;
  /** The session stream's last entry id before anything is sent: events after it are this agent's. */
  lastEventId: string;
  tools: ToolSet;
}): Promise<RunnableAgent & { close(): Promise<void> }> {
  const { sessionId, sessions } = options;
  const messages: ModelMessage[] = (await readSessionView(options.store, sessionId))?.messages ?? [];
  const events = new Subject<AgentEvent>();
  const reader = options.reader;
  const stop = new AbortController();
  const reading = (async () => {
    for await (const { entry } of readSessionEvents({ redis: reader, sessionId, lastEventId: options.lastEventId, blockMs: 500, signal: stop.signal })) {
      events.next(entry.event);
    }
  })().catch((error: unknown) => events.error(error));
  return {
    sessionId,
    tools: options.tools,
    messages,
    events$: events.asObservable(),
    run(prompt: Prompt): Promise<RunResult> {
      const ended = new Promise<RunResult>((resolve) => {
        const subscription = events.subscribe((event) => {
          if (event.type !== 'run-end') return;
          subscription.unsubscribe();
          resolve(event.result);
        });
      });
      return sessions.send(sessionId, { type: 'prompt', prompt }, generateId()).then(() => ended);
    },
    abort(reason?: string) {
      void sessions.send(sessionId, { type: 'abort', ...(reason !== undefined ? { reason } : {}) }, generateId());
    },
    async close() {
      stop.abort();
      await reading;
      await reader.quit().catch(() => undefined);
      events.complete();
    },
  };
}
