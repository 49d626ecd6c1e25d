import { APICallError, createAgentUIStream, Output, readUIMessageStream, tool, type UIMessage, type UIMessageChunk } from 'ai';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '../src/index.js';
import { newMessages, toAISDKAgent } from 'loopchart/ai-sdk';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';
import { scriptedModel } from '../src/test/index.js';

const twoSteps = () => [
  { text: ['Adding 2 and 3.'], toolCalls: [{ id: 'call-1', name: 'add', input: { a: 2, b: 3 } }] },
  { text: ['It is ', '5.'] },
];

const userMessage = (text: string): UIMessage => ({ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] });

async function uiRun(agent: Agent, text: string): Promise<{ chunks: UIMessageChunk[]; message: UIMessage | undefined }> {
  const stream = await createAgentUIStream({
    agent: toAISDKAgent(agent),
    uiMessages: [userMessage(text)],
    // The AI SDK hides error messages from the UI unless the app says otherwise.
    onError: (error) => (error instanceof Error ? error.message : String(error)),
  });
  const chunks: UIMessageChunk[] = [];
  const [forChunks, forMessages] = stream.tee();
  const collecting = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: forMessages })) message = snapshot;
  await collecting;
  return { chunks, message };
}

describe('toAISDKAgent', () => {
  it('satisfies the AI SDK Agent interface', () => {
    const agent = createAgent({ model: mockModel([]), tools: { add: addTool }, instructions: 'x' });
    const sdkAgent = toAISDKAgent(agent, { id: 'adder' });
    expect(sdkAgent.version).toBe('agent-v1');
    expect(sdkAgent.id).toBe('adder');
    expect(Object.keys(sdkAgent.tools)).toEqual(['add']);
  });

  it('feeds createAgentUIStream: text, tool call, tool result and finish parts for a two-step run', async () => {
    const agent = createAgent({ model: mockModel(twoSteps()), tools: { add: addTool } });
    const { chunks, message } = await uiRun(agent, 'What is 2 + 3?');
    const types = chunks.map((chunk) => chunk.type);
    expect(types).toEqual(expect.arrayContaining(['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'tool-input-available', 'tool-output-available', 'finish-step', 'finish']));
    expect(types.filter((type) => type === 'start-step')).toHaveLength(2);
    expect(types.at(-1)).toBe('finish');
    const parts = message!.parts;
    expect(parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text)).toEqual(['Adding 2 and 3.', 'It is 5.']);
    expect(parts.find((part) => part.type === 'tool-add')).toMatchObject({ state: 'output-available', input: { a: 2, b: 3 }, output: 5 });
  });

  it('ends the call at an approval request, as ToolLoopAgent does, and goes on when the next call brings the answer', async () => {
    const agent = createAgent({ model: mockModel(twoSteps()), tools: { add: addTool }, approval: { ask: ['add'] } });
    const first = await uiRun(agent, 'What is 2 + 3?');
    expect(first.chunks.find((chunk) => chunk.type === 'tool-approval-request')).toMatchObject({ toolCallId: 'call-1', approvalId: 'approval-call-1' });
    expect(first.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    expect(agent.pendingApprovals).toEqual(['call-1']);

    const asked = first.message!;
    const answered = {
      ...asked,
      parts: asked.parts.map((part) => (part.type === 'tool-add' && part.state === 'approval-requested' ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: true } } : part)),
    } as UIMessage;
    const stream = await createAgentUIStream({ agent: toAISDKAgent(agent), uiMessages: [userMessage('What is 2 + 3?'), answered] });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'tool-output-available', 'start-step', 'text-start', 'text-delta', 'text-delta', 'text-end', 'finish-step', 'finish']);
    expect(chunks[1]).toMatchObject({ toolCallId: 'call-1', output: 5 });
    expect(agent.pendingApprovals).toEqual([]);
  });

  it('a denial given in the next call is tool-output-denied, and the tool never runs', async () => {
    let ran = 0;
    const counted = tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => (ran++, a + b) });
    const agent = createAgent({ model: mockModel(twoSteps()), tools: { add: counted }, approval: { ask: ['add'] } });
    const sdkAgent = toAISDKAgent(agent);
    const first = await sdkAgent.generate({ prompt: 'What is 2 + 3?' });
    const request = first.content.find((part) => part.type === 'tool-approval-request')!;
    const stream = await sdkAgent.stream({
      messages: [
        { role: 'user', content: 'What is 2 + 3?' },
        ...first.responseMessages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: false, reason: 'no' }] },
      ],
    });
    const types: string[] = [];
    for await (const part of stream.fullStream) types.push(part.type);
    expect(types.slice(0, 2)).toEqual(['start', 'tool-output-denied']);
    expect(ran).toBe(0);
  });

  it('an answer the agent’s output rejects leaves nothing in the stream or the UI message: only the answer that matched', async () => {
    const weather = Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) });
    const model = mockModel([{ reasoning: ['Guessing.'], text: ['{"city":"Oslo",', '"celsius":"balmy"}'] }, { reasoning: ['Measured.'], text: ['{"city":"Oslo",', '"celsius":4}'] }]);
    const agent = createAgent({ model, output: weather, retry: { maxAttempts: 2 } });

    const { chunks, message } = await uiRun(agent, 'How warm is it in Oslo?');

    expect(JSON.stringify(chunks)).not.toContain('balmy');
    expect(JSON.stringify(chunks)).not.toContain('Guessing');
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(message!.parts.filter((part) => part.type === 'text' || part.type === 'reasoning').map((part) => (part as { text: string }).text)).toEqual(['Measured.', '{"city":"Oslo","celsius":4}']);
  });

  it('an agent’s answer that is never accepted still reaches the stream before the error that ends it', async () => {
    const weather = Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) });
    const agent = createAgent({ model: mockModel([{ text: ['It is balmy.'] }]), output: weather, retry: { maxAttempts: 1 } });

    const { chunks } = await uiRun(agent, 'How warm is it in Oslo?');

    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'error']);
    expect(chunks.find((chunk) => chunk.type === 'text-delta')).toMatchObject({ delta: 'It is balmy.' });
  });

  it("a provider error rejects generate() with the provider's own error, as ToolLoopAgent does", async () => {
    const failure = new APICallError({ message: 'Bad request', url: 'http://127.0.0.1/v1', requestBodyValues: {}, statusCode: 400, isRetryable: false });
    const agent = createAgent({ model: mockModel([{ reject: failure }]) });
    await expect(toAISDKAgent(agent).generate({ prompt: 'hi' })).rejects.toBe(failure);
  });

  it("an abort rejects generate() with the AbortError, and a failed run's UI stream ends with its error, not a finish", async () => {
    const model = mockModel([{ text: ['Once', ' upon'], holdAfter: 3 }]);
    const agent = createAgent({ model });
    const controller = new AbortController();
    void model.untilHeld().then(() => controller.abort());
    await expect(toAISDKAgent(agent).generate({ prompt: 'hi', abortSignal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });

    const failing = createAgent({ model: mockModel([{ reject: new Error('boom') }]) });
    let finish: { finishReason?: string } | undefined;
    const stream = await createAgentUIStream({ agent: toAISDKAgent(failing), uiMessages: [userMessage('hi')], onFinish: (event) => void (finish = event) });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'error']);
    expect(finish?.finishReason).not.toBe('stop');
  });

  it('a denied run reaches the UI stream with its reason, not as a silent stop', async () => {
    const agent = createAgent({ model: mockModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }]), tools: { add: addTool }, approval: { deny: ['add'] }, onDeny: 'stop' });
    const { chunks } = await uiRun(agent, 'add');
    expect(chunks.find((chunk) => chunk.type === 'error')).toMatchObject({ errorText: expect.stringMatching(/outcome "denied"/) });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
  });

  it("generate() gives the AI SDK's results: StepResults, tool calls and results, only the response messages", async () => {
    const agent = createAgent({ model: mockModel(twoSteps()), tools: { add: addTool } });
    const result = await toAISDKAgent(agent).generate({ prompt: 'What is 2 + 3?' });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]).toMatchObject({ stepNumber: 0, finishReason: 'tool-calls', text: 'Adding 2 and 3.', model: { modelId: 'mock-model-id' } });
    expect(result.toolCalls).toEqual([{ type: 'tool-call', toolCallId: 'call-1', toolName: 'add', input: { a: 2, b: 3 } }]);
    expect(result.toolResults).toMatchObject([{ type: 'tool-result', toolCallId: 'call-1', output: 5, dynamic: false }]);
    expect(result.responseMessages.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(result.response.messages.map((message) => message.role)).toEqual(['assistant']);
  });

  it('a run that cannot start still ends the stream with an error part that says why', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['slow'], holdBeforeFirst: true }]) });
    const busy = agent.run('first');
    const result = await toAISDKAgent(agent).stream({ prompt: 'second' });
    const parts: string[] = [];
    for await (const part of result.stream) parts.push(part.type === 'error' ? `error: ${(part.error as Error).message}` : part.type);
    expect(parts).toEqual(['start', expect.stringMatching(/^error: A run is already active/)]);
    agent.abort();
    await busy;
  });

  it("a call's abort signal aborts only its own run: not another's, when the agent is busy and the call's run cannot start", async () => {
    const model = mockModel([{ text: ['slow', ' answer'], holdAfter: 3 }]);
    const agent = createAgent({ model });
    const busy = agent.run('first');
    await model.untilHeld();
    await expect(toAISDKAgent(agent).generate({ prompt: 'already aborted', abortSignal: AbortSignal.abort() })).rejects.toThrow(/A run is already active/);
    const controller = new AbortController();
    const aborted = toAISDKAgent(agent).generate({ prompt: 'aborted at once', abortSignal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toThrow(/A run is already active/);
    expect(agent.isRunning).toBe(true);
    agent.abort();
    await busy;
  });

  it('a call whose signal is already aborted aborts the run it starts', async () => {
    const model = mockModel([{ text: ['never read'], holdBeforeFirst: true }]);
    const agent = createAgent({ model });
    await expect(toAISDKAgent(agent).generate({ prompt: 'hi', abortSignal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(agent.isRunning).toBe(false);
  });

  it('generate() runs the agent and returns the text and the loopchart result', async () => {
    const agent = createAgent({ model: mockModel(twoSteps()), tools: { add: addTool } });
    const result = await toAISDKAgent(agent).generate({ prompt: 'What is 2 + 3?' });
    expect(result.text).toBe('It is 5.');
    expect(result.finishReason).toBe('stop');
    expect(result.totalUsage.totalTokens).toBe(30);
  });

  it('a chat UI sends the whole conversation; only the new user messages are added to the history', () => {
    const history = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: 'hello' },
    ];
    const sent = [...history, { role: 'user' as const, content: 'and now?' }];
    expect(newMessages(history, sent)).toEqual([{ role: 'user', content: 'and now?' }]);
    expect(newMessages([], sent)).toEqual(sent);
    expect(newMessages(history, 'plain')).toBe('plain');
  });
});

describe('toAISDKAgent call parameters', () => {
  it('refuses, naming it and what to use instead, a generate() or stream() parameter it would otherwise ignore', async () => {
    const agent = toAISDKAgent(createAgent({ model: scriptedModel([{ text: 'never' }]) }));
    await expect(agent.generate({ prompt: 'hi', onStart: () => undefined })).rejects.toThrow(/onStart is not supported \(use agent\.events\$/);
    await expect(agent.stream({ prompt: 'hi', timeout: 1_000 })).rejects.toThrow(/timeout is not supported \(a loopchart agent's time limits are its own: createAgent\(\{ timeout \}\)\)/);
    await expect(agent.generate({ prompt: 'hi', options: { x: 1 } } as never)).rejects.toThrow(/options is not supported/);
  });

  it("refuses an option of toAISDKAgent it does not know, or an approvals value it does not take, naming it (a misspelt 'in_stream' was the default without a word)", () => {
    const inner = createAgent({ model: scriptedModel([{ text: 'never' }]) });
    expect(() => toAISDKAgent(inner, { approvals: 'in_stream' } as never)).toThrow(/approvals must be 'messages' \(the default\) or 'in-stream', not "in_stream"/);
    expect(() => toAISDKAgent(inner, { approval: 'in-stream' } as never)).toThrow(/unknown option approval \(it takes id and approvals\)/);
    expect(() => toAISDKAgent(inner, { id: 7 } as never)).toThrow(/id must be a string/);
    expect(toAISDKAgent(inner, { id: 'chat-1', approvals: 'in-stream' }).id).toBe('chat-1');
  });

  it('refuses a parameter outside the Agent interface, which ToolLoopAgent would pass on to streamText for the call (temperature, toolChoice, system), naming it', async () => {
    const inner = createAgent({ model: scriptedModel([{ text: 'never' }]) });
    const agent = toAISDKAgent(inner);
    const temperature = { prompt: 'hi', temperature: 0 };
    await expect(agent.generate(temperature)).rejects.toThrow(/temperature is not supported \(not a parameter of the AI SDK's Agent, which ToolLoopAgent passes on to streamText for this call; for a loopchart agent it is not a createAgent option: a call setting goes with the model/);
    const toolChoice = { prompt: 'hi', toolChoice: 'none' };
    await expect(agent.stream(toolChoice)).rejects.toThrow(/toolChoice is not supported \(.*return \{ toolChoice \} from prepareStep/);
    const system = { prompt: 'hi', system: 'Be loud.' };
    await expect(agent.generate(system)).rejects.toThrow(/system is not supported \(.*a loopchart agent takes its settings once, in createAgent\)/);
    // Refused before any run: nothing joined the history.
    expect(inner.messages).toEqual([]);
  });
});
