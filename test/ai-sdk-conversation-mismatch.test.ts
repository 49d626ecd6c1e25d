import { createAgentUIStream, readUIMessageStream, type ModelMessage, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '../src/index.js';
import { ConversationMismatchError, toAISDKAgent } from 'loopchart/ai-sdk';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const answers = (...texts: string[]) => texts.map((text) => ({ text: [text] }));

/** A two-turn conversation as a chat UI sends it: the first call, its answer, the second question, its answer. */
async function twoTurns(agent: Agent): Promise<ModelMessage[]> {
  const sdkAgent = toAISDKAgent(agent);
  const first = await sdkAgent.generate({ messages: [user('hi')] });
  const second = [user('hi'), ...first.responseMessages, user('and now?')];
  await sdkAgent.generate({ messages: second });
  return second;
}

describe('toAISDKAgent: a call that does not continue the conversation', () => {
  it('a regenerate (the previous call resent) is refused by generate(), and no run starts', async () => {
    const agent = createAgent({ model: mockModel(answers('hello', 'now', 'again')) });
    const second = await twoTurns(agent);
    const history = agent.messages;
    const refused = toAISDKAgent(agent).generate({ messages: second });
    await expect(refused).rejects.toBeInstanceOf(ConversationMismatchError);
    await expect(refused).rejects.toThrow(/no user message the previous call did not have.*keeps its own history.*regenerate\(\).*forkSession/s);
    expect(agent.messages).toEqual(history);
  });

  it('an edit of the first user message is refused by stream() with an error part naming the message, and no run starts', async () => {
    const agent = createAgent({ model: mockModel(answers('hello', 'now', 'again')) });
    const second = await twoTurns(agent);
    const history = agent.messages;
    const edited = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello there' }] }, ...second.slice(1), assistant('now'), user('ok')];
    const result = await toAISDKAgent(agent).stream({ messages: edited });
    const parts: unknown[] = [];
    for await (const part of result.fullStream) parts.push(part);
    expect(parts.map((part) => (part as { type: string }).type)).toEqual(['start', 'error']);
    const error = (parts[1] as { error: unknown }).error;
    expect(error).toBeInstanceOf(ConversationMismatchError);
    expect((error as Error).message).toMatch(/message 0 is not the user message/);
    await expect(result.text).rejects.toThrow();
    expect(agent.messages).toEqual(history);
  });

  it("another chat's messages sent to the same agent are refused", async () => {
    const agent = createAgent({ model: mockModel(answers('hello', 'now', 'again')) });
    await twoTurns(agent);
    const history = agent.messages;
    const other = [user('what is the weather?'), assistant('sunny'), user('tomorrow?'), assistant('rain'), user('and then?')];
    await expect(toAISDKAgent(agent).generate({ messages: other })).rejects.toThrow(/message 0 is not the user message/);
    expect(agent.messages).toEqual(history);
  });

  it('a refused call is not remembered: the next real continuation is accepted', async () => {
    const agent = createAgent({ model: mockModel(answers('hello', 'now', 'again')) });
    const second = await twoTurns(agent);
    await expect(toAISDKAgent(agent).generate({ messages: second })).rejects.toBeInstanceOf(ConversationMismatchError);
    const third = await toAISDKAgent(agent).generate({ messages: [...second, assistant('now'), user('thanks')] });
    expect(third.text).toBe('again');
  });
});

describe('toAISDKAgent: a call that continues the conversation', () => {
  it('after a failed run, a new message is accepted and the failed one is not added twice; resending it is refused', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['hello'] }, { reject: new Error('bad request') }, { text: ['there'] }]), retry: { maxAttempts: 1 } });
    const sdkAgent = toAISDKAgent(agent);
    const first = await sdkAgent.generate({ messages: [user('hi')] });
    const second = [user('hi'), ...first.responseMessages, user('and now?')];
    await expect(sdkAgent.generate({ messages: second })).rejects.toThrow('bad request');
    // useChat drops the failed call's empty assistant message: the conversation goes on with only more user messages.
    await expect(sdkAgent.generate({ messages: second })).rejects.toThrow(/send a new message/);
    const third = await sdkAgent.generate({ messages: [...second, user('hello?')] });
    expect(third.text).toBe('there');
    expect(agent.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['hi', 'and now?', 'hello?']);
  });

  it('a call whose run could not start is not remembered: sending it again is accepted', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['hello'] }, { text: ['slow'], holdBeforeFirst: true }, { text: ['now'] }]) });
    const sdkAgent = toAISDKAgent(agent);
    const first = await sdkAgent.generate({ messages: [user('hi')] });
    const busy = agent.run('meanwhile');
    const second = [user('hi'), ...first.responseMessages, user('and now?')];
    await expect(sdkAgent.generate({ messages: second })).rejects.toThrow(/A run is already active/);
    agent.abort();
    await busy;
    expect((await sdkAgent.generate({ messages: second })).text).toBe('now');
  });

  it('a three-turn conversation sent whole each time, as useChat does, is accepted', async () => {
    const agent = createAgent({ model: mockModel(answers('one', 'two', 'three')) });
    const sdkAgent = toAISDKAgent(agent);
    let messages: ModelMessage[] = [];
    for (const question of ['a', 'b', 'c']) {
      messages = [...messages, user(question)];
      const result = await sdkAgent.generate({ messages });
      // The client writes the answer back its own way (a string content here).
      messages = [...messages, { role: 'assistant', content: result.text }];
    }
    expect(agent.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['a', 'b', 'c']);
  });

  it('a client that sends only its newest message each time is accepted', async () => {
    const agent = createAgent({ model: mockModel(answers('one', 'two', 'three')) });
    for (const question of ['a', 'a', 'b']) await toAISDKAgent(agent).generate({ prompt: [user(question)] });
    expect(agent.messages.filter((message) => message.role === 'user')).toHaveLength(3);
  });

  it('an approval round trip through useChat messages, then a new question, is accepted', async () => {
    const agent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'call-1', name: 'add', input: { a: 2, b: 3 } }] }, { text: ['It is 5.'] }, { text: ['Bye.'] }]),
      tools: { add: addTool },
      approval: { ask: ['add'] },
    });
    const question: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is 2 + 3?' }] };
    const asked = await uiCall(agent, [question]);
    const answered = {
      ...asked,
      parts: asked.parts.map((part) => (part.type === 'tool-add' && part.state === 'approval-requested' ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: true } } : part)),
    } as UIMessage;
    const done = await uiCall(agent, [question, answered], answered);
    expect(done.parts.some((part) => part.type === 'text' && part.text === 'It is 5.')).toBe(true);
    const thanks: UIMessage = { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Thanks.' }] };
    const last = await uiCall(agent, [question, done, thanks]);
    expect(last.parts.some((part) => part.type === 'text' && part.text === 'Bye.')).toBe(true);
    // A regenerate of that last answer is refused, through the UI stream as well.
    await expect(uiCall(agent, [question, done, thanks])).rejects.toThrow(/does not continue the agent's conversation/);
  });
});

/** One useChat request: the UI messages in, the assistant message the stream builds out; an error chunk throws. */
async function uiCall(agent: Agent, uiMessages: UIMessage[], continued?: UIMessage): Promise<UIMessage> {
  const stream = await createAgentUIStream({ agent: toAISDKAgent(agent), uiMessages, onError: (error) => (error instanceof Error ? error.message : String(error)) });
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const error = chunks.find((chunk) => chunk.type === 'error');
  if (error) throw new Error(error.errorText);
  let message: UIMessage | undefined;
  const replay = new ReadableStream<UIMessageChunk>({ start: (controller) => (chunks.forEach((chunk) => controller.enqueue(chunk)), controller.close()) });
  for await (const snapshot of readUIMessageStream({ stream: replay, ...(continued ? { message: continued } : {}) })) message = snapshot;
  if (message === undefined) throw new Error('the stream built no message');
  return message;
}

describe('toAISDKAgent: a call with no new message', () => {
  it('is refused with an error that says the messages end without a new user message, not that the prompt is empty', async () => {
    const agent = createAgent({ model: mockModel(answers('hello')) });
    const sdkAgent = toAISDKAgent(agent);
    const first = await sdkAgent.generate({ messages: [user('hi')] });
    await expect(sdkAgent.generate({ messages: [user('hi'), ...first.responseMessages] })).rejects.toThrow(/end with no new user message/);
  });

  it('ending in a tool output the client gave (useChat addToolOutput) is refused with an error that says loopchart runs every tool itself', async () => {
    const agent = createAgent({ model: mockModel(answers('hello')) });
    const sdkAgent = toAISDKAgent(agent);
    await sdkAgent.generate({ messages: [user('hi')] });
    const clientOutput: ModelMessage[] = [
      user('hi'),
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'pickColor', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'pickColor', output: { type: 'json', value: 'red' } }] },
    ];
    await expect(sdkAgent.generate({ messages: clientOutput })).rejects.toThrow(
      /end with the output of tool call c1 \(pickColor\), which the client gave \(addToolOutput\).*runs every tool call itself.*tool without execute/,
    );
  });
});
