/**
 * The soak's web node sending inputs: through `sessionClient` (over the proxies, so a send can
 * fail mid-cut), in schedule order per session, each retried with its request id until `send`
 * accepts it — as a web node retries a request that failed — and recorded in the harness log.
 */
import type { SessionClient } from '../../src/dbos/session-client.js';
import type { SessionInput } from '../../src/scale/advance-session.js';
import type { HarnessLog, SentInput } from './soak-observations.js';

export interface InputSenderOptions {
  /** One attempt that has not answered after this long is abandoned and tried again. */
  attemptTimeoutMs?: number;
  /** An input still refused this long after its first attempt is given up (and reported). */
  giveUpAfterMs?: number;
}

export class InputSender {
  private readonly chains = new Map<string, Promise<void>>();
  private inFlight = 0;

  constructor(
    private readonly sessions: SessionClient,
    private readonly log: HarnessLog,
    private readonly options: InputSenderOptions = {},
  ) {}

  /** Sends after the inputs sent to the session before it; resolves once accepted or given up. */
  send(sessionId: string, requestId: string, input: SessionInput): Promise<void> {
    const sent: SentInput = { requestId, sessionId, input, at: Date.now(), attempts: 0 };
    this.log.sends.push(sent);
    this.inFlight++;
    const next = (this.chains.get(sessionId) ?? Promise.resolve()).then(() => this.deliver(sent)).finally(() => this.inFlight--);
    this.chains.set(sessionId, next);
    return next;
  }

  /** No send is waiting or in progress. */
  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** Resolves once every send so far is accepted or given up. */
  async settled(): Promise<void> {
    while (!this.idle) await Promise.all([...this.chains.values()]);
  }

  private async deliver(sent: SentInput): Promise<void> {
    const giveUpAt = Date.now() + (this.options.giveUpAfterMs ?? 60_000);
    for (;;) {
      sent.attempts++;
      try {
        sent.turn = await withTimeout(this.sessions.send(sent.sessionId, sent.input, sent.requestId), this.options.attemptTimeoutMs ?? 20_000);
        sent.acceptedAt = Date.now();
        delete sent.error;
        return;
      } catch (error) {
        sent.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        if (Date.now() >= giveUpAt) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
