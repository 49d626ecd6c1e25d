import { APICallError, dynamicTool, hasToolCall, isStepCount, Output, tool, type ToolSet } from 'ai';
import { openai } from '@ai-sdk/openai';
import { z } from 'zod';
import { call, reasoning, text, toolCall, type ScriptedCall } from './script-model.js';

/**
 * What both contestants are given: the AI SDK settings of a `ToolLoopAgent` that loopchart's
 * `createAgent` takes under the same names.
 */
export interface ScenarioSettings {
  instructions?: string;
  tools?: ToolSet;
  toolApproval?: unknown;
  output?: Output.Output;
  stopWhen?: unknown;
  prepareStep?: unknown;
}

/** An approval answer given through the AI SDK's own flow (a `tool-approval-response` in the next call's messages). */
export interface ApprovalAnswer {
  approved: boolean;
  reason?: string;
}

export interface Scenario {
  name: string;
  script: ScriptedCall[];
  /** Built afresh for each contestant and each observation (tools may count their calls). */
  settings: () => ScenarioSettings;
  /** Answers to the approval requests of the first call, in order; the second call carries them. */
  approvals?: ApprovalAnswer[];
  /** Aborts the call once the model's stream has reached its hold point. */
  abortMidStream?: boolean;
  prompt: string;
}

const add = () =>
  tool({
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => a + b,
  });

const pay = (needsApproval: boolean | ((input: { amount: number }) => Promise<boolean>)) =>
  tool({
    description: 'Pays an amount',
    inputSchema: z.object({ amount: z.number() }),
    needsApproval,
    execute: async ({ amount }) => `paid ${amount}`,
  });

const broken = () =>
  tool({
    description: 'Always fails',
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error('disk on fire');
    },
  });

/** A tool with the fields the AI SDK copies onto its calls' parts: `title` and `metadata` (as `toolMetadata`). */
const titled = (needsApproval = false) =>
  tool({
    title: 'Adder',
    metadata: { source: 'calculator-server' },
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    needsApproval,
    execute: async ({ a, b }) => a + b,
  });

const weather = z.object({ city: z.string(), celsius: z.number() });

const toolThenText = (name: string, input: string, answer = 'Done.'): ScriptedCall[] => [
  call([...text('t1', 'Working on it.'), ...toolCall('c1', name, input)]),
  call(text('t2', answer)),
];

/** Every scenario the issue names; the conformance test runs each through both contestants. */
export const scenarios: Scenario[] = [
  { name: 'plain text', prompt: 'Hello', settings: () => ({ instructions: 'Be brief.' }), script: [call(text('t1', 'Hello ', 'there.'))] },
  { name: 'one tool', prompt: 'What is 2 + 3?', settings: () => ({ tools: { add: add() } }), script: toolThenText('add', '{"a":2,"b":3}', 'It is 5.') },
  {
    name: 'parallel tools',
    prompt: 'Add twice',
    settings: () => ({ tools: { add: add() } }),
    script: [call([...toolCall('c1', 'add', '{"a":1,"b":2}'), ...toolCall('c2', 'add', '{"a":3,"b":4}')]), call(text('t2', '3 and 7.'))],
  },
  { name: 'throwing tool', prompt: 'Try it', settings: () => ({ tools: { broken: broken() } }), script: toolThenText('broken', '{}') },
  { name: 'invalid input', prompt: 'Add', settings: () => ({ tools: { add: add() } }), script: toolThenText('add', '{"a":"two"}') },
  { name: 'unknown tool', prompt: 'Multiply', settings: () => ({ tools: { add: add() } }), script: toolThenText('multiply', '{"a":2}') },
  {
    name: 'tool title and metadata',
    prompt: 'Add twice',
    settings: () => ({ tools: { add: titled() } }),
    script: [call([...toolCall('c1', 'add', '{"a":1,"b":2}'), ...toolCall('c2', 'add', '{"a":"one"}')]), call(text('t2', '3, and one was not a number.'))],
  },
  {
    name: 'tool title and metadata, approved',
    prompt: 'Add',
    settings: () => ({ tools: { add: titled(true) } }),
    approvals: [{ approved: true }],
    script: toolThenText('add', '{"a":1,"b":2}', 'It is 3.'),
  },
  {
    name: 'dynamic tool',
    prompt: 'Add',
    settings: () => ({
      tools: { add: dynamicTool({ description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async (input) => (input as { a: number; b: number }).a + (input as { a: number; b: number }).b }) },
    }),
    script: toolThenText('add', '{"a":1,"b":2}', 'It is 3.'),
  },
  {
    name: 'reasoning',
    prompt: 'Think first',
    settings: () => ({}),
    script: [call([...reasoning('r1', 'Let me ', 'think.'), ...text('t1', 'Thought it through.')])],
  },
  {
    name: 'needsApproval true, approved',
    prompt: 'Pay 50',
    settings: () => ({ tools: { pay: pay(true) } }),
    approvals: [{ approved: true }],
    script: toolThenText('pay', '{"amount":50}', 'Paid.'),
  },
  {
    name: 'needsApproval true, denied',
    prompt: 'Pay 50',
    settings: () => ({ tools: { pay: pay(true) } }),
    approvals: [{ approved: false, reason: 'too much' }],
    script: toolThenText('pay', '{"amount":50}', 'Not paid.'),
  },
  {
    name: 'needsApproval function, approved',
    prompt: 'Pay 500',
    settings: () => ({ tools: { pay: pay(async ({ amount }) => amount > 100) } }),
    approvals: [{ approved: true }],
    script: toolThenText('pay', '{"amount":500}', 'Paid.'),
  },
  {
    name: 'needsApproval function, denied',
    prompt: 'Pay 500',
    settings: () => ({ tools: { pay: pay(async ({ amount }) => amount > 100) } }),
    approvals: [{ approved: false }],
    script: toolThenText('pay', '{"amount":500}', 'Not paid.'),
  },
  {
    name: 'needsApproval function, not needed',
    prompt: 'Pay 5',
    settings: () => ({ tools: { pay: pay(async ({ amount }) => amount > 100) } }),
    script: toolThenText('pay', '{"amount":5}', 'Paid.'),
  },
  {
    name: 'toolApproval',
    prompt: 'Add and pay',
    settings: () => ({
      tools: { add: add(), pay: pay(false) },
      toolApproval: { pay: 'user-approval', add: { type: 'denied', reason: 'no adding today' } },
    }),
    approvals: [{ approved: true }],
    script: [call([...toolCall('c1', 'add', '{"a":1,"b":2}'), ...toolCall('c2', 'pay', '{"amount":5}')]), call(text('t2', 'Paid, not added.'))],
  },
  {
    name: 'Output.object valid',
    prompt: 'Weather in Oslo',
    settings: () => ({ output: Output.object({ schema: weather }) }),
    script: [call(text('t1', '{"city":"Oslo",', '"celsius":21}'))],
  },
  {
    name: 'Output.object invalid then valid',
    prompt: 'Weather in Oslo',
    settings: () => ({ output: Output.object({ schema: weather }) }),
    script: [call(text('t1', '{"city":"Oslo","celsius":"warm"}')), call(text('t1', '{"city":"Oslo","celsius":21}'))],
  },
  {
    name: 'stopWhen',
    prompt: 'Add until told',
    settings: () => ({ tools: { add: add() }, stopWhen: [hasToolCall('add'), isStepCount(5)] }),
    script: [call(toolCall('c1', 'add', '{"a":1,"b":1}')), call(text('t2', 'never reached'))],
  },
  {
    name: 'prepareStep',
    prompt: 'Add, then answer',
    settings: () => ({
      tools: { add: add() },
      prepareStep: ({ stepNumber }: { stepNumber: number }) => (stepNumber === 1 ? { activeTools: [], system: 'Answer now.' } : undefined),
    }),
    script: toolThenText('add', '{"a":2,"b":3}', 'It is 5.'),
  },
  {
    name: 'abort mid-stream',
    prompt: 'Write a lot',
    settings: () => ({}),
    abortMidStream: true,
    script: [{ ...call(text('t1', 'Once upon', ' a time', ' there was')), holdAfter: 3 }],
  },
  {
    name: 'provider error',
    prompt: 'Hello',
    settings: () => ({}),
    script: [
      {
        reject: new APICallError({
          message: 'Bad request: the model does not exist',
          url: 'http://127.0.0.1/v1/chat/completions',
          requestBodyValues: {},
          statusCode: 400,
          isRetryable: false,
        }),
      },
    ],
  },
  {
    name: 'provider-executed web search',
    prompt: 'Is XState v5 out?',
    settings: () => ({ tools: { web_search: openai.tools.webSearch({}) } }),
    script: [
      call([
        { type: 'tool-input-start', id: 'ws_1', toolName: 'web_search', providerExecuted: true },
        { type: 'tool-input-delta', id: 'ws_1', delta: '{}' },
        { type: 'tool-input-end', id: 'ws_1' },
        { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: { action: { type: 'search', query: 'xstate v5' } } },
        { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://stately.ai/docs', title: 'XState docs' },
        ...text('t1', 'XState v5 is out.'),
      ]),
    ],
  },
  {
    name: 'generated files',
    prompt: 'Draw a cat',
    settings: () => ({}),
    script: [
      call([
        ...reasoning('r1', 'A cat, then.'),
        { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'c2tldGNo' } },
        ...text('t1', 'Here is your cat:'),
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array([137, 80, 78, 71]) }, providerMetadata: { google: { thoughtSignature: 'sig' } } },
        { type: 'file', mediaType: 'text/plain', data: { type: 'data', data: 'bWVvdw==' } },
      ]),
    ],
  },
  {
    name: 'provider warnings',
    prompt: 'Hello',
    settings: () => ({}),
    script: [call(text('t1', 'Hi.'), { warnings: [{ type: 'unsupported', feature: 'temperature', details: 'this model has no temperature' }], modelId: 'mock-model-v2' })],
  },
];
