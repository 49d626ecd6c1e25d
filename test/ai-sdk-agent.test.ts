import { createAgentUIStream, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '../src/index.js';
import { newMessages, toAISDKAgent } from 'loopchart/ai-sdk';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

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

  it('reports an approval request part for an ask policy', async () => {
    const agent = createAgent({ model: mockModel(twoSteps()), tools: { add: addTool }, approval: { ask: ['add'] } });
    const answered = new Promise<void>((resolve) =>
      agent.events$.subscribe((event) => {
        if (event.type === 'approval-request') {
          agent.approve(event.toolCallId);
          resolve();
        }
      }),
    );
    const { chunks, message } = await uiRun(agent, 'What is 2 + 3?');
    await answered;
    expect(chunks.find((chunk) => chunk.type === 'tool-approval-request')).toMatchObject({ toolCallId: 'call-1', approvalId: 'call-1' });
    expect(message!.parts.find((part) => part.type === 'tool-add')).toMatchObject({ state: 'output-available', output: 5 });
  });

  it('an outcome other than completed reaches the UI stream with its reason, not as a silent stop', async () => {
    const agent = createAgent({ model: mockModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }]), tools: { add: addTool }, maxSteps: 1 });
    const { chunks } = await uiRun(agent, 'loop');
    expect(chunks.find((chunk) => chunk.type === 'error')).toMatchObject({ errorText: expect.stringMatching(/outcome "max-steps"/) });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('a run that cannot start still ends the stream with an error part that says why', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['slow'], holdBeforeFirst: true }]) });
    const busy = agent.run('first');
    const result = await toAISDKAgent(agent).stream({ prompt: 'second' });
    const parts: string[] = [];
    for await (const part of result.stream) parts.push(part.type === 'error' ? `error: ${(part.error as Error).message}` : part.type);
    expect(parts).toEqual([expect.stringMatching(/^error: A run is already active/)]);
    agent.abort();
    await busy;
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
