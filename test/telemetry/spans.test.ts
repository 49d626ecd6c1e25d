import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type ContextManager, type HrTime, type Span, type Tracer } from '@opentelemetry/api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from 'xstate';
import { APICallError } from '@ai-sdk/provider';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { Output, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentOptionsError, agentTool, createAgent, fileStore, type AgentOptions } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { mockModel } from '../support/mock-model.js';
import { MAX_ATTRIBUTE_CHARS } from '../../src/telemetry/gen-ai-attributes.js';
import { AgentSession, untilSession } from '../../src/session/session-actor.js';
import { addTool, failTool } from '../support/tools.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('loopchart-test');

afterEach(() => exporter.reset());

const ms = (time: HrTime) => time[0] * 1000 + time[1] / 1e6;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const byStart = (spans: ReadableSpan[]) => [...spans].sort((a, b) => ms(a.startTime) - ms(b.startTime));

/** The run's spans: its root, and the root's children in start order (equal starts keep the order they ended in). */
function spanTree() {
  const spans = exporter.getFinishedSpans();
  const roots = spans.filter((span) => span.name.startsWith('invoke_agent'));
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  const children = byStart(spans.filter((span) => span !== root));
  for (const child of children) {
    expect(parentOf(child)).toBe(root.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(ms(child.startTime)).toBeGreaterThanOrEqual(ms(root.startTime));
    expect(ms(child.endTime)).toBeLessThanOrEqual(ms(root.endTime));
    expect(ms(child.endTime)).toBeGreaterThanOrEqual(ms(child.startTime));
  }
  return { root, children };
}

function agentWith(options: Omit<AgentOptions, 'telemetry'>) {
  return createAgent({ ...options, telemetry: { tracer, functionId: 'calculator' } });
}

describe('OpenTelemetry spans', () => {
  it('a two-step tool run is an invoke_agent span with chat, execute_tool and chat under it, with the GenAI attributes', async () => {
    const model = scriptedModel(
      [
        { toolCalls: [{ id: 'call-1', name: 'add', input: { a: 1, b: 2 } }], usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 4 } },
        { text: 'It is 3.', usage: { inputTokens: 20, outputTokens: 5 } },
      ],
      { modelId: 'calc-1' },
    );
    const result = await agentWith({ model, tools: { add: addTool } }).run('What is 1 + 2?');
    expect(result.outcome).toBe('completed');

    const { root, children } = spanTree();
    expect(parentOf(root)).toBeUndefined();
    expect(root.name).toBe('invoke_agent calculator');
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'calculator',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'calc-1',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 8,
      'gen_ai.response.finish_reasons': ['stop'],
      'loopchart.outcome': 'completed',
      'loopchart.steps': 2,
      'loopchart.tool_calls': 1,
      'loopchart.state': 'running.deciding',
    });

    expect(children.map((span) => span.name)).toEqual(['chat calc-1', 'execute_tool add', 'chat calc-1']);
    const [firstChat, tool, secondChat] = children as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(firstChat.kind).toBe(SpanKind.CLIENT);
    expect(firstChat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'calc-1',
      'gen_ai.response.finish_reasons': ['tool_call'],
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.usage.cache_read.input_tokens': 4,
      'loopchart.step': 1,
      'loopchart.attempt': 1,
      'loopchart.state': 'running.llm.calling',
      'loopchart.run.id': root.attributes['loopchart.run.id'],
    });
    expect(firstChat.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.arguments': '{"a":1,"b":2}',
      'gen_ai.tool.call.result': '3',
      'loopchart.step': 1,
      'loopchart.state': 'running.toolExec',
    });
    expect(secondChat.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
      'loopchart.step': 2,
      'loopchart.attempt': 1,
    });
    for (const span of children) expect(span.status.code).toBe(SpanStatusCode.UNSET);
    // The model call ends before its tool runs.
    expect(ms(firstChat.endTime)).toBeLessThanOrEqual(ms(tool.startTime));
  });

  it('a tool that throws gives an execute_tool span with status ERROR and the error recorded; the run itself is fine', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'boom', name: 'fail', input: {} }] }, { text: 'It failed.' }]);
    const result = await agentWith({ model, tools: { fail: failTool } }).run('go');
    expect(result.outcome).toBe('completed');

    const { root, children } = spanTree();
    const tool = children.find((span) => span.name === 'execute_tool fail')!;
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk on fire' });
    expect(tool.attributes).toMatchObject({ 'error.type': 'tool_error', 'gen_ai.tool.call.id': 'boom' });
    expect(tool.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(tool.events).toEqual([expect.objectContaining({ name: 'exception', attributes: expect.objectContaining({ 'exception.message': 'disk on fire' }) })]);
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('an approval is a span from the request to the decision, with the decision; a denied call is an error result', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'yes', name: 'add', input: { a: 1, b: 1 } },
          { id: 'no', name: 'add', input: { a: 2, b: 2 } },
        ],
      },
      { text: 'Done.' },
    ]);
    const agent = agentWith({ model, tools: { add: addTool }, approval: { ask: ['add'] } });
    agent.events$.subscribe((event) => {
      if (event.type !== 'approval-request') return;
      if (event.toolCallId === 'yes') agent.approve('yes');
      else agent.deny('no', 'not that one');
    });
    const result = await agent.run('go');
    expect(result.outcome).toBe('completed');

    const { children } = spanTree();
    const approvals = children.filter((span) => span.name === 'approval add');
    expect(approvals.map((span) => [span.attributes['gen_ai.tool.call.id'], span.attributes['loopchart.approval.decision']])).toEqual([
      ['yes', 'approved'],
      ['no', 'denied'],
    ]);
    expect(approvals[1]!.attributes).toMatchObject({
      'gen_ai.tool.name': 'add',
      'loopchart.approval.reason': 'policy',
      'loopchart.approval.message': 'not that one',
      'loopchart.state': 'running.awaitingApproval',
      'loopchart.step': 1,
    });
    const tools = children.filter((span) => span.name === 'execute_tool add');
    expect(Object.fromEntries(tools.map((span) => [span.attributes['gen_ai.tool.call.id'], span.status.code]))).toEqual({
      yes: SpanStatusCode.UNSET,
      no: SpanStatusCode.ERROR,
    });
    // The denied call's span starts and ends no earlier than its decision.
    const denial = approvals[1]!;
    const denied = tools.find((span) => span.attributes['gen_ai.tool.call.id'] === 'no')!;
    expect(ms(denied.startTime)).toBeGreaterThanOrEqual(ms(denial.endTime));
  });

  it('a run left waiting for approval when its agent is disposed ends its spans, the root marked abandoned, instead of leaving them open for ever', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'wait', name: 'add', input: { a: 1, b: 1 } }] }, { text: 'Done.' }]);
    const agent = agentWith({ model, tools: { add: addTool }, approval: { ask: ['add'] } });
    agent.events$.subscribe(() => undefined);
    const run = agent.run('go').catch((error: unknown) => error);
    await expect.poll(() => agent.pendingApprovals, { timeout: 30_000 }).toEqual(['wait']);
    await agent.dispose();
    expect(String(await run)).toContain('disposed while its run waited for approval');

    const { root, children } = spanTree();
    expect(root.attributes).toMatchObject({ 'loopchart.abandoned': 'disposed', 'loopchart.state': 'running.awaitingApproval' });
    expect(root.attributes['loopchart.outcome']).toBeUndefined();
    expect(children.find((span) => span.name === 'approval add')?.attributes['loopchart.approval.decision']).toBe('unanswered');
  });

  it('a run its session halts mid-call (as a crash would stop it) ends its spans, the root marked abandoned', async () => {
    const session = new AgentSession({ model: mockModel([{ text: ['thinking'], holdAfter: 3 }]), telemetry: { tracer } }, { parent: undefined, depth: 0 });
    const writing = new Promise<void>((resolve) => {
      session.host.events$.subscribe((event) => event.type === 'text-delta' && resolve());
    });
    session.actor.send({ type: 'session.prompt', messages: [{ role: 'user', content: 'go' }], inputId: 'p1' });
    await writing;
    session.actor.send({ type: 'session.halt', error: new Error('superseded') });
    await untilSession(session.actor, (snapshot) => snapshot.status === 'done');

    const { root, children } = spanTree();
    expect(root.attributes['loopchart.abandoned']).toBe('halted');
    expect(children.map((span) => span.name)).toEqual(['chat mock-model-id']);
  });

  it('a failed attempt is a chat span with status ERROR, the wait a retry span, and the next attempt a chat span of its own', async () => {
    const busy = new APICallError({ message: 'busy', url: 'u', requestBodyValues: {}, statusCode: 503, isRetryable: true });
    const model = mockModel([{ reject: busy }, { text: ['ok'], usage: { input: 7, output: 1 } }]);
    const result = await agentWith({ model, retry: { baseDelayMs: 1 } }).run('go');
    expect(result.outcome).toBe('completed');

    const { root, children } = spanTree();
    expect(children.map((span) => span.name)).toEqual(['chat mock-model-id', 'retry', 'chat mock-model-id']);
    const [failed, retry, retried] = children as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes).toMatchObject({ 'error.type': 'overloaded', 'loopchart.attempt': 1 });
    expect(failed.events.map((event) => event.name)).toEqual(['exception']);
    expect(retry.attributes).toMatchObject({
      'loopchart.retry.attempt': 2,
      'error.type': 'overloaded',
      'http.response.status_code': 503,
      'loopchart.state': 'running.retrying',
      'loopchart.step': 1,
    });
    expect(ms(retry.endTime)).toBeLessThanOrEqual(ms(retried.startTime));
    expect(retried.status.code).toBe(SpanStatusCode.UNSET);
    expect(retried.attributes).toMatchObject({ 'loopchart.attempt': 2, 'loopchart.step': 1, 'gen_ai.usage.input_tokens': 7 });
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a run that fails ends its invoke_agent span with status ERROR and the error', async () => {
    const denied = new APICallError({ message: 'bad key', url: 'u', requestBodyValues: {}, statusCode: 401, isRetryable: false });
    const result = await agentWith({ model: mockModel([{ reject: denied }]) }).run('go');
    expect(result.outcome).toBe('failed');

    const { root, children } = spanTree();
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes).toMatchObject({ 'loopchart.outcome': 'failed', 'error.type': 'auth' });
    expect(children.map((span) => [span.name, span.status.code])).toEqual([['chat mock-model-id', SpanStatusCode.ERROR]]);
  });

  it('the chat span covers the provider call only: hooks around it are left out', async () => {
    // The hooks take a known time (a timer of HOOK_MS), the scripted call almost none: the span
    // must start at least that long after the run and end at least that long before it.
    const HOOK_MS = 50;
    const wait = () => new Promise<void>((resolve) => setTimeout(resolve, HOOK_MS));
    const agent = agentWith({ model: scriptedModel([{ text: 'hi' }]), hooks: { beforeLLMCall: [wait], afterLLMCall: [wait] } });
    await agent.run('go');

    const { root, children } = spanTree();
    const chat = children.find((span) => span.name.startsWith('chat'))!;
    expect(ms(chat.startTime) - ms(root.startTime)).toBeGreaterThanOrEqual(HOOK_MS - 2);
    expect(ms(root.endTime) - ms(chat.endTime)).toBeGreaterThanOrEqual(HOOK_MS - 2);
  });

  it('the root span is a child of the span active when run() is called, and every other run is its own trace', async () => {
    // A context manager of the smallest kind: `with` makes a context active while its function runs (synchronously).
    let active = ROOT_CONTEXT;
    const manager: ContextManager = {
      active: () => active,
      with: (next, fn, thisArg, ...args) => {
        const previous = active;
        active = next;
        try {
          return fn.call(thisArg, ...args);
        } finally {
          active = previous;
        }
      },
      bind: (_context, target) => target,
      enable: () => manager,
      disable: () => manager,
    };
    context.setGlobalContextManager(manager);
    try {
      const request = tracer.startSpan('request');
      const agent = agentWith({ model: scriptedModel([{ text: 'one' }, { text: 'two' }]) });
      const first = context.with(trace.setSpan(context.active(), request), () => agent.run('first'));
      await first;
      await agent.run('second');
      request.end();
      const roots = exporter.getFinishedSpans().filter((span) => span.name.startsWith('invoke_agent'));
      expect(roots).toHaveLength(2);
      expect(parentOf(roots[0]!)).toBe(request.spanContext().spanId);
      expect(roots[0]!.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(parentOf(roots[1]!)).toBeUndefined();
      expect(roots[1]!.spanContext().traceId).not.toBe(request.spanContext().traceId);
    } finally {
      context.disable();
    }
  });

  it('a run its root span does not record (sampled out) makes no other span; the next recorded run has all of its own', async () => {
    let sampled = false;
    const off = new BasicTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('off');
    const started: Array<{ name: string; traceId: string }> = [];
    const switching: Tracer = {
      startSpan(name, options, parent) {
        const span = (sampled ? tracer : off).startSpan(name, options, parent);
        started.push({ name, traceId: span.spanContext().traceId });
        return span;
      },
      startActiveSpan: tracer.startActiveSpan.bind(tracer),
    };
    const activeInTool: Array<string | undefined> = [];
    const add = tool({
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        activeInTool.push(trace.getActiveSpan()?.spanContext().traceId);
        return a + b;
      },
    });
    const model = mockModel([{ toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['3'] }, { toolCalls: [{ id: 'c2', name: 'add', input: { a: 2, b: 2 } }] }, { text: ['4'] }]);
    const agent = createAgent({ model, tools: { add }, telemetry: { tracer: switching, functionId: 'calculator' } });
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      expect((await agent.run('1 + 2')).outcome).toBe('completed');
    } finally {
      context.disable();
    }
    expect(started.map((span) => span.name)).toEqual(['invoke_agent calculator']);
    expect(exporter.getFinishedSpans()).toEqual([]);
    // The tool ran in the unrecorded root's context: a span of its own would join the run's trace.
    expect(activeInTool).toEqual([started[0]!.traceId]);

    sampled = true;
    expect((await agent.run('2 + 2')).outcome).toBe('completed');
    const { root, children } = spanTree();
    expect(root.name).toBe('invoke_agent calculator');
    expect(children.map((span) => span.name)).toEqual(['chat mock-model-id', 'execute_tool add', 'chat mock-model-id']);
  });

  it('a run resumed from a session in another process links its root span to the one the run began with', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'loopchart-telemetry-'));
    try {
      const roots: Span[] = [];
      const capturing: Tracer = {
        startSpan(name, options, parent) {
          const span = tracer.startSpan(name, options, parent);
          if (name.startsWith('invoke_agent')) roots.push(span);
          return span;
        },
        startActiveSpan: tracer.startActiveSpan.bind(tracer),
      };
      const first = createAgent({ model: mockModel([{ text: ['x'], holdBeforeFirst: true }]), store: fileStore(dir), sessionId: 's', telemetry: { tracer: capturing, functionId: 'worker' } });
      void first.run('add 1 and 2');
      await first.ready();
      await waitFor(first.actor, (state) => state.matches({ running: { llm: 'calling' } }));
      await new Promise((resolve) => setImmediate(resolve));
      const began = roots[0]!.spanContext();

      // Another process takes the session over from its last checkpoint; the first never ends its run.
      const resumed = createAgent({ model: mockModel([{ text: ['3'] }]), store: fileStore(dir), sessionId: 's', telemetry: { tracer: capturing, functionId: 'worker' } });
      expect((await resumed.resume())?.outcome).toBe('completed');
      const root = exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent worker')!;
      expect(root.attributes['loopchart.resumed']).toBe(true);
      expect(root.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[began.traceId, began.spanId]]);
      first.abort();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects a telemetry option that is not one, naming the field', () => {
    expect(() => createAgent({ model: scriptedModel([]), telemetry: { tracer: {} as never } })).toThrow(AgentOptionsError);
    expect(() => createAgent({ model: scriptedModel([]), telemetry: { tracer: {} as never } })).toThrow(/telemetry\.tracer: expected an OpenTelemetry Tracer/);
    expect(() => createAgent({ model: scriptedModel([]), telemetry: { recordInput: true } as never })).toThrow(/telemetry/);
  });

  it('a 10 MB tool output or error reaches its span cut to MAX_ATTRIBUTE_CHARS with a mark, and a secret across the cut leaves no piece', async () => {
    const key = 'sk-live-CUTACROSS-9f8e7d6c';
    // The key starts 6 characters before the cut: a naive cut would leave its first 6 characters.
    const huge = `${'x'.repeat(MAX_ATTRIBUTE_CHARS - 6)}${key}${'y'.repeat(10_000_000)}`;
    const big = tool({ description: 'big', inputSchema: z.object({}), execute: async () => huge });
    const broken = tool({
      description: 'broken',
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error('z'.repeat(10_000_000));
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'big', name: 'big', input: {} },
          { id: 'broken', name: 'broken', input: {} },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await createAgent({ model, tools: { big, broken }, secrets: [key], telemetry: { tracer } }).run('go');
    expect(result.outcome).toBe('completed');

    const { children } = spanTree();
    const attribute = String(children.find((span) => span.name === 'execute_tool big')!.attributes['gen_ai.tool.call.result']);
    expect(attribute.length).toBeLessThan(MAX_ATTRIBUTE_CHARS + 100);
    expect(attribute).toMatch(/…\[cut: \d+ characters in all\]$/);
    expect(attribute).not.toContain(key.slice(0, 4));
    const failed = children.find((span) => span.name === 'execute_tool broken')!;
    expect(failed.status.message!.length).toBeLessThan(MAX_ATTRIBUTE_CHARS + 100);
    expect(JSON.stringify(failed.events).length).toBeLessThan(MAX_ATTRIBUTE_CHARS + 1000);
  });

  it('a tool name the model made up, 1 MB long, reaches its span name and gen_ai.tool.name cut to MAX_ATTRIBUTE_CHARS', async () => {
    const name = 'n'.repeat(1_000_000);
    await createAgent({ model: scriptedModel([{ toolCalls: [{ name, input: {} }] }, { text: 'ok' }]), tools: { add: addTool }, telemetry: { tracer } }).run('go');
    const tool = exporter.getFinishedSpans().find((span) => span.name.startsWith('execute_tool'))!;
    expect(tool.name.length).toBeLessThan(MAX_ATTRIBUTE_CHARS + 100);
    expect(String(tool.attributes['gen_ai.tool.name'])).toMatch(/…\[cut: 1000000 characters in all\]$/);
  });

  it('records no tool input or output when recordInputs and recordOutputs are false', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: '3' }]);
    await createAgent({ model, tools: { add: addTool }, telemetry: { tracer, recordInputs: false, recordOutputs: false } }).run('go');
    const tool = exporter.getFinishedSpans().find((span) => span.name === 'execute_tool add')!;
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(tool.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(tool.attributes['gen_ai.tool.name']).toBe('add');
  });

  it("a tool's own spans are children of its execute_tool span, and so is a sub-agent's invoke_agent", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const lookup = tool({
        description: 'Looks a word up (an HTTP call of its own, traced).',
        inputSchema: z.object({ word: z.string() }),
        execute: async ({ word }) => {
          await new Promise((resolve) => setImmediate(resolve));
          return tracer.startActiveSpan('GET /dictionary', (span) => {
            span.end();
            return `${word}: a word`;
          });
        },
      });
      const researcher = createAgent({ model: scriptedModel([{ text: 'found it' }]), telemetry: { tracer, functionId: 'researcher' } });
      const model = scriptedModel([{ toolCalls: [{ id: 'look', name: 'lookup', input: { word: 'loop' } }, { id: 'ask', name: 'research', input: { task: 'dig' } }] }, { text: 'done' }]);
      const result = await agentWith({ model, tools: { lookup, research: agentTool(researcher, { description: 'Researches.' }) } }).run('go');
      expect(result.outcome).toBe('completed');

      const spans = exporter.getFinishedSpans();
      const named = (name: string) => spans.find((span) => span.name === name)!;
      const root = named('invoke_agent calculator');
      const lookupSpan = named('execute_tool lookup');
      const researchSpan = named('execute_tool research');
      expect(parentOf(lookupSpan)).toBe(root.spanContext().spanId);
      expect(parentOf(named('GET /dictionary'))).toBe(lookupSpan.spanContext().spanId);
      expect(parentOf(named('invoke_agent researcher'))).toBe(researchSpan.spanContext().spanId);
      expect(named('invoke_agent researcher').spanContext().traceId).toBe(root.spanContext().traceId);
      expect(lookupSpan.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'look', 'gen_ai.tool.call.result': '"loop: a word"', 'loopchart.step': 1 });
    } finally {
      context.disable();
    }
  });

  it('a beforeLLMCall hook that calls another model has that model on its chat span', async () => {
    const fallback = scriptedModel([{ text: 'from the small model' }], { modelId: 'small-model' });
    const agent = agentWith({ model: scriptedModel([]), hooks: { beforeLLMCall: [() => ({ model: fallback })] } });
    expect((await agent.run('go')).text).toBe('from the small model');

    const { children } = spanTree();
    expect(children.map((span) => span.name)).toEqual(['chat small-model']);
    expect(children[0]!.attributes).toMatchObject({ 'gen_ai.request.model': 'small-model', 'gen_ai.provider.name': 'scripted' });
  });

  it('a failed attempt whose stream finished carries its usage on its chat span', async () => {
    const model = mockModel([
      { text: ['not json'], usage: { input: 100, output: 20 } },
      { text: ['{"n":1}'], usage: { input: 120, output: 5 } },
    ]);
    await agentWith({ model, output: Output.object({ schema: z.object({ n: z.number() }) }), retry: { maxAttempts: 2 } }).run('go');

    const chats = spanTree().children.filter((span) => span.name.startsWith('chat'));
    expect(chats.map((span) => [span.status.code, span.attributes['gen_ai.usage.input_tokens'], span.attributes['gen_ai.usage.output_tokens']])).toEqual([
      [SpanStatusCode.ERROR, 100, 20],
      [SpanStatusCode.UNSET, 120, 5],
    ]);
  });
});

