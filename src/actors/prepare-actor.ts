import type { ModelMessage } from 'ai';
import { fromCallback, type EventObject } from 'xstate';
import type { PromptTransform } from '../context/at-mentions.js';
import { errorMessage } from '../core/error-message.js';
import { messageShapeProblem } from '../core/message-shape.js';
import type { RunError } from '../core/result.js';

export interface PrepareActorInput {
  /** The prompt as the caller gave it. */
  prompt: ModelMessage[];
}

/** What the prepare actor reports: the prompt to put in the history, or why there is none. */
export type PrepareActorEvent = { type: 'prompt.prepared'; messages: ModelMessage[] } | { type: 'prompt.failed'; error: RunError };

/**
 * The prepare actor: runs `transformPrompt` (for example `atMentions`) on a
 * run's prompt before it enters the history, in the `running.preparing`
 * state. Stopping it — the run is aborted or times out — aborts the signal the
 * transform was given. A transform that throws, or returns something that is
 * not a list of messages, fails the run (`invalid-request`). Without a
 * transform the prompt is reported at once, in the same macrostep.
 *
 * @example
 * ```ts
 * const prepare = createPrepareActor(atMentions({ cwd: process.cwd() }));
 * agentMachine.provide({ actors: { prepare } });
 * ```
 */
export function createPrepareActor(transform: PromptTransform | undefined) {
  return fromCallback<EventObject, PrepareActorInput, PrepareActorEvent>(({ input, sendBack }) => {
    if (!transform) {
      sendBack({ type: 'prompt.prepared', messages: input.prompt });
      return;
    }
    const controller = new AbortController();
    const fail = (message: string) => sendBack({ type: 'prompt.failed', error: { kind: 'invalid-request', message } });
    transform(input.prompt, { signal: controller.signal }).then(
      (messages: unknown) => {
        if (controller.signal.aborted) return;
        const problem = promptProblem(messages);
        if (problem) fail(`transformPrompt returned an invalid prompt: ${problem}`);
        else sendBack({ type: 'prompt.prepared', messages: messages as ModelMessage[] });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) fail(`transformPrompt failed: ${errorMessage(error)}`);
      },
    );
    return () => controller.abort();
  });
}

function promptProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return 'expected an array of messages';
  for (const [index, message] of messages.entries()) {
    const problem = messageShapeProblem(message);
    if (problem !== undefined) return `message ${index}: ${problem}`;
  }
  return undefined;
}
