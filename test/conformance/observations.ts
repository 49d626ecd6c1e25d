import {
  createAgentUIStream,
  createAgentUIStreamResponse,
  isToolUIPart,
  readUIMessageStream,
  type ModelMessage,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { Contestant } from './contestants.js';
import type { Scenario } from './scenarios.js';

/** What one way of using an agent shows an app, for one contestant (normalised before comparing). */
export type Observation = (build: () => Contestant, scenario: Scenario) => Promise<unknown>;

const errorText = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

const settle = async <T>(promise: PromiseLike<T>): Promise<{ value: T } | { rejected: unknown }> => {
  try {
    return { value: await promise };
  } catch (error) {
    return { rejected: error };
  }
};

/** Builds the contestant; a construction that throws is what the app observes. */
function tryBuild(build: () => Contestant): Contestant | { constructionError: unknown } {
  try {
    return build();
  } catch (error) {
    return { constructionError: error };
  }
}

/** Aborts once the scripted model is held mid-stream (for the abort scenario). */
function abortWhenHeld(contestant: Contestant, scenario: Scenario): AbortSignal {
  const controller = new AbortController();
  if (scenario.abortMidStream) void contestant.model.held.then(() => controller.abort());
  return controller.signal;
}

const userMessage = (text: string): UIMessage => ({ id: 'user-1', role: 'user', parts: [{ type: 'text', text }] });

/** `addToolApprovalResponse` as useChat does it: the part moves to `approval-responded`. */
function answerApprovals(message: UIMessage, answers: Scenario['approvals'] = []): UIMessage {
  let next = 0;
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (!isToolUIPart(part) || part.state !== 'approval-requested' || part.approval.isAutomatic) return part;
      const answer = answers[next++];
      if (answer === undefined) return part;
      return { ...part, state: 'approval-responded', approval: { ...part.approval, approved: answer.approved, ...(answer.reason ? { reason: answer.reason } : {}) } } as unknown as typeof part;
    }),
  };
}

/** `createAgentUIStream`, as useChat's server does: the chunks, the UI message and `onFinish` of each request. */
export const uiStream: Observation = async (build, scenario) => {
  const built = tryBuild(build);
  if ('constructionError' in built) return built;
  const signal = abortWhenHeld(built, scenario);
  let messages: UIMessage[] = [userMessage(scenario.prompt)];
  const rounds: unknown[] = [];
  for (let round = 0; round < (scenario.approvals ? 2 : 1); round++) {
    let finish: unknown;
    const stream = await settle(
      createAgentUIStream({
        agent: built.agent,
        uiMessages: messages,
        abortSignal: signal,
        onError: errorText,
        onFinish: ({ isAborted, isContinuation, finishReason, responseMessage }) => {
          finish = { isAborted, isContinuation, finishReason, responseMessage };
        },
      }),
    );
    if ('rejected' in stream) {
      rounds.push({ rejected: stream.rejected });
      break;
    }
    const chunks: UIMessageChunk[] = [];
    const [forChunks, forMessage] = stream.value.tee();
    const collecting = (async () => {
      for await (const chunk of forChunks) chunks.push(chunk);
    })();
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream: forMessage, ...(round > 0 ? { message: messages.at(-1) } : {}) })) message = snapshot;
    await collecting;
    rounds.push({ chunks, message, finish });
    if (message === undefined) break;
    messages = [...messages.slice(0, round > 0 ? -1 : undefined), answerApprovals(message, scenario.approvals)];
  }
  return { rounds };
};

/** `createAgentUIStreamResponse`: the status, the headers that matter and the body's SSE lines. */
export const uiStreamResponse: Observation = async (build, scenario) => {
  const built = tryBuild(build);
  if ('constructionError' in built) return built;
  const response = await settle(
    createAgentUIStreamResponse({ agent: built.agent, uiMessages: [userMessage(scenario.prompt)], abortSignal: abortWhenHeld(built, scenario), onError: errorText }),
  );
  if ('rejected' in response) return response;
  const body = await response.value.text();
  const events = body
    .split('\n\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length))
    .map((data): unknown => (data === '[DONE]' ? data : JSON.parse(data)));
  return { status: response.value.status, contentType: response.value.headers.get('content-type'), events };
};

type GenerateResult = Awaited<ReturnType<Contestant['agent']['generate']>>;

/** What an app reads of a `generate()` result, with every promise-free field the AI SDK documents. */
function generateFields(result: GenerateResult) {
  const output = (() => {
    try {
      return { value: result.output };
    } catch (error) {
      return { thrown: error };
    }
  })();
  return {
    text: result.text,
    content: result.content,
    reasoning: result.reasoning,
    reasoningText: result.reasoningText,
    toolCalls: result.toolCalls,
    staticToolCalls: result.staticToolCalls,
    dynamicToolCalls: result.dynamicToolCalls,
    toolResults: result.toolResults,
    finishReason: result.finishReason,
    rawFinishReason: result.rawFinishReason,
    usage: result.usage,
    totalUsage: result.totalUsage,
    warnings: result.warnings,
    response: { ...result.response, messages: (result.response as { messages?: unknown }).messages },
    responseMessages: result.responseMessages,
    steps: result.steps.map((step) => ({
      stepNumber: step.stepNumber,
      model: step.model,
      content: step.content,
      text: step.text,
      reasoningText: step.reasoningText,
      toolCalls: step.toolCalls,
      toolResults: step.toolResults,
      finishReason: step.finishReason,
      rawFinishReason: step.rawFinishReason,
      usage: step.usage,
      warnings: step.warnings,
      response: step.response,
    })),
    output,
  };
}

/** The approval answers as a tool message, as an app that calls `generate()` writes it. */
function approvalResponses(result: GenerateResult, scenario: Scenario): ModelMessage {
  const requests = result.content.filter((part) => part.type === 'tool-approval-request').filter((part) => !part.isAutomatic);
  return {
    role: 'tool',
    content: requests.map((request, index) => ({
      type: 'tool-approval-response' as const,
      approvalId: request.approvalId,
      approved: scenario.approvals?.[index]?.approved ?? false,
      ...(scenario.approvals?.[index]?.reason ? { reason: scenario.approvals[index].reason } : {}),
    })),
  };
}

/** `generate()`, and for an approval scenario a second `generate()` with the answers appended to the messages. */
export const generate: Observation = async (build, scenario) => {
  const built = tryBuild(build);
  if ('constructionError' in built) return built;
  const signal = abortWhenHeld(built, scenario);
  const prompt: ModelMessage[] = [{ role: 'user', content: scenario.prompt }];
  const first = await settle(built.agent.generate({ prompt, abortSignal: signal }));
  if ('rejected' in first) return { rounds: [first] };
  const rounds: unknown[] = [generateFields(first.value)];
  if (scenario.approvals) {
    const messages = [...prompt, ...first.value.responseMessages, approvalResponses(first.value, scenario)];
    const second = await settle(built.agent.generate({ messages, abortSignal: signal }));
    rounds.push('rejected' in second ? second : generateFields(second.value));
  }
  return { rounds };
};

/** `stream()`: every `fullStream` part, then the awaited fields. */
export const stream: Observation = async (build, scenario) => {
  const built = tryBuild(build);
  if ('constructionError' in built) return built;
  const result = await settle(built.agent.stream({ prompt: scenario.prompt, abortSignal: abortWhenHeld(built, scenario) }));
  if ('rejected' in result) return result;
  const parts: unknown[] = [];
  const read = await settle(
    (async () => {
      for await (const part of result.value.fullStream) parts.push(part);
    })(),
  );
  const awaited = {
    text: await settle(result.value.text),
    finishReason: await settle(result.value.finishReason),
    usage: await settle(result.value.usage),
    totalUsage: await settle(result.value.totalUsage),
    toolCalls: await settle(result.value.toolCalls),
    toolResults: await settle(result.value.toolResults),
    reasoningText: await settle(result.value.reasoningText),
    warnings: await settle(result.value.warnings),
    steps: await settle(Promise.resolve(result.value.steps).then((steps) => steps.length)),
    responseMessages: await settle(Promise.resolve(result.value.response).then((response) => response.messages)),
    output: await settle(result.value.output),
  };
  return { parts, read: 'rejected' in read ? read : 'ok', awaited };
};

/** The per-call callbacks given to `generate()`, in the order they were called, with their arguments. */
export const callbacks: Observation = async (build, scenario) => {
  const built = tryBuild(build);
  if ('constructionError' in built) return built;
  const calls: unknown[] = [];
  const outcome = await settle(
    built.agent.generate({
      prompt: scenario.prompt,
      abortSignal: abortWhenHeld(built, scenario),
      onStepStart: (event) => void calls.push({ onStepStart: { stepNumber: event.stepNumber, provider: event.provider, modelId: event.modelId, messages: event.messages } }),
      onToolExecutionStart: (event) => void calls.push({ onToolExecutionStart: { toolCall: event.toolCall, messages: event.messages } }),
      onToolExecutionEnd: (event) => void calls.push({ onToolExecutionEnd: { toolCall: event.toolCall, toolOutput: event.toolOutput } }),
      onStepFinish: (event) =>
        void calls.push({
          onStepFinish: { stepNumber: event.stepNumber, text: event.text, finishReason: event.finishReason, toolCalls: event.toolCalls, toolResults: event.toolResults, usage: event.usage },
        }),
      onFinish: (event) =>
        void calls.push({
          onFinish: { text: event.text, finishReason: event.finishReason, steps: event.steps.length, totalUsage: event.totalUsage, responseMessages: event.responseMessages },
        }),
    }),
  );
  return { calls, outcome: 'rejected' in outcome ? outcome : 'resolved' };
};

/** What the provider was sent, call by call: the prompt, the tools offered, the response format. */
export const requests: Observation = async (build, scenario) => {
  const built = tryBuild(build);
  if ('constructionError' in built) return built;
  await settle(built.agent.generate({ prompt: scenario.prompt, abortSignal: abortWhenHeld(built, scenario) }));
  return built.model.calls.map((call) => ({
    prompt: call.prompt,
    tools: call.tools?.map((tool) => tool.name),
    toolChoice: call.toolChoice,
    responseFormat: call.responseFormat,
  }));
};

/** Every observation the conformance test makes of every scenario. */
export const observations = { uiStream, uiStreamResponse, generate, stream, callbacks, requests } satisfies Record<string, Observation>;
export type ObservationName = keyof typeof observations;
