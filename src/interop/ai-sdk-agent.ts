import {
  createUIMessageStreamResponse,
  toUIMessageStream,
  type Agent as AISDKAgent,
  type GenerateTextResult,
  type ModelMessage,
  type StreamTextResult,
  type TextStreamPart,
  type ToolSet,
} from 'ai';
import type { Agent } from '../agent.js';
import type { RunResult } from '../result.js';
import { PartBuffer } from './part-buffer.js';
import { finishReasonOf, TextStreamPartMapper } from './text-stream-parts.js';

type Part = TextStreamPart<ToolSet>;

/**
 * What `toAISDKAgent` uses of an agent: an agent made by `createAgent`, or anything that runs a
 * session elsewhere and reports its events (a web node that sends runs to workers and reads their
 * events from Redis, as examples/chat-server/scaled does).
 */
export type RunnableAgent = Pick<Agent, 'events$' | 'messages' | 'run' | 'abort' | 'tools' | 'sessionId'>;
type CallParameters = { prompt?: string | ModelMessage[]; messages?: ModelMessage[]; abortSignal?: AbortSignal };

/**
 * What a call adds to the agent's history. A chat UI sends the whole
 * conversation every time; the agent keeps its own history, so only the new
 * messages at the end (the user messages after the last assistant or tool
 * message) are the prompt — unless the agent has no history yet, then all of
 * them are.
 */
export function newMessages(history: readonly ModelMessage[], prompt: string | ModelMessage[]): string | ModelMessage[] {
  if (typeof prompt === 'string' || history.length === 0) return prompt;
  let start = prompt.length;
  while (start > 0 && prompt[start - 1]!.role === 'user') start--;
  return prompt.slice(start);
}

/** Runs the agent once and feeds its events, as text stream parts, into a buffer. */
function startRun(agent: RunnableAgent, parameters: CallParameters): { parts: PartBuffer<Part>; result: Promise<RunResult> } {
  const parts = new PartBuffer<Part>();
  const mapper = new TextStreamPartMapper();
  let runId: string | undefined;
  const subscription = agent.events$.subscribe((event) => {
    if (event.type === 'run-start' && runId === undefined) runId = event.runId;
    if (!('runId' in event) || event.runId !== runId) return;
    for (const part of mapper.map(event)) parts.push(part);
  });
  const prompt = newMessages(agent.messages, parameters.prompt ?? parameters.messages ?? []);
  const onAbort = () => agent.abort('the caller aborted the request');
  parameters.abortSignal?.addEventListener('abort', onAbort, { once: true });
  const result = agent
    .run(prompt)
    .catch((error: unknown) => {
      // The run never started (busy, or the session could not be read): the stream still says why.
      parts.push({ type: 'error', error });
      throw error;
    })
    .finally(() => {
      subscription.unsubscribe();
      parameters.abortSignal?.removeEventListener('abort', onAbort);
      parts.close();
    });
  return { parts, result };
}

function textOf(stream: ReadableStream<Part>): ReadableStream<string> {
  return stream.pipeThrough(
    new TransformStream<Part, string>({
      transform(part, controller) {
        if (part.type === 'text-delta') controller.enqueue(part.text);
      },
    }),
  );
}

/**
 * The agent as an AI SDK 7 `Agent` (`version: 'agent-v1'`), so that
 * `createAgentUIStream`, `createAgentUIStreamResponse` and `useChat` work with
 * it unchanged. `stream()` carries every step of the run — text, reasoning,
 * tool calls, tool results and errors, approval requests — and ends with a
 * `finish` whose `rawFinishReason` is `loopchart:<outcome>`; an outcome other
 * than `completed` is preceded by an `error` (or `abort`) part that says so.
 *
 * @example
 * ```ts
 * import { createAgentUIStreamResponse } from 'ai';
 *
 * const agent = createAgent({ model, tools });
 * export async function POST(request: Request) {
 *   const { messages } = await request.json();
 *   return createAgentUIStreamResponse({ agent: toAISDKAgent(agent), uiMessages: messages });
 * }
 * ```
 */
export function toAISDKAgent(agent: RunnableAgent, options: { id?: string } = {}): AISDKAgent<never, ToolSet> {
  return {
    version: 'agent-v1',
    id: options.id ?? agent.sessionId,
    tools: agent.tools,
    async generate(parameters) {
      const { result } = startRun(agent, parameters);
      const done = await result;
      return {
        text: done.text,
        finishReason: finishReasonOf(done),
        rawFinishReason: `loopchart:${done.outcome}`,
        usage: done.usage,
        totalUsage: done.usage,
        response: { messages: done.messages, id: done.trace?.runId ?? '', timestamp: new Date(), modelId: '' },
        steps: [],
        content: [{ type: 'text', text: done.text }],
        toolCalls: [],
        toolResults: [],
        warnings: [],
        loopchart: done,
      } as unknown as GenerateTextResult<ToolSet, never, never>;
    },
    async stream(parameters) {
      const { parts, result } = startRun(agent, parameters);
      const settled = result.catch(() => undefined);
      const streamResult = {
        get stream() {
          return parts.readable();
        },
        get fullStream() {
          return parts.readable();
        },
        get textStream() {
          return textOf(parts.readable());
        },
        text: settled.then((done) => done?.text ?? ''),
        finishReason: settled.then((done) => (done ? finishReasonOf(done) : 'error')),
        rawFinishReason: settled.then((done) => `loopchart:${done?.outcome ?? 'failed'}`),
        usage: settled.then((done) => (done ? done.usage : undefined)),
        totalUsage: settled.then((done) => (done ? done.usage : undefined)),
        response: settled.then((done) => ({ messages: done?.messages ?? [], id: done?.trace?.runId ?? '', timestamp: new Date(), modelId: '' })),
        steps: settled.then(() => []),
        /** The loopchart `RunResult`, for callers that want the outcome itself. */
        loopchart: result,
        consumeStream: async () => {
          await settled;
        },
        toUIMessageStream: (uiOptions: Omit<Parameters<typeof toUIMessageStream>[0], 'stream' | 'tools'> = {}) =>
          toUIMessageStream({ ...uiOptions, stream: parts.readable(), tools: agent.tools }),
        toUIMessageStreamResponse: (uiOptions: Omit<Parameters<typeof toUIMessageStream>[0], 'stream' | 'tools'> = {}) =>
          createUIMessageStreamResponse({ stream: toUIMessageStream({ ...uiOptions, stream: parts.readable(), tools: agent.tools }) }),
      };
      return streamResult as unknown as StreamTextResult<ToolSet, never, never>;
    },
  };
}
