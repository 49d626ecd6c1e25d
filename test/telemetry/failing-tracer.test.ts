import { context, ROOT_CONTEXT, type ContextManager, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { TELEMETRY_FAILED_WARNING } from '../../src/telemetry/tolerant-tracer.js';
import { addTool } from '../support/tools.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('loopchart-test');

afterEach(() => exporter.reset());

/** The test tracer, whose spans throw from `method` (the rest of each span works). */
function tracerWhoseSpansThrowFrom(method: keyof Span): Tracer {
  return {
    startSpan: (name: string, options?: Parameters<Tracer['startSpan']>[1], context?: Parameters<Tracer['startSpan']>[2]) => {
      const span = tracer.startSpan(name, options, context);
      return new Proxy(span, {
        get: (target, key) => {
          if (key === method) {
            return () => {
              throw new Error(`exporter on fire in ${String(key)}`);
            };
          }
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  } as unknown as Tracer;
}

/** Two runs of one tool step and an answer each. */
async function twoRuns(telemetryTracer: Tracer) {
  const model = scriptedModel([
    { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 2 } }] },
    { text: 'It is 3.' },
    { toolCalls: [{ id: 'c2', name: 'add', input: { a: 1, b: 2 } }] },
    { text: 'It is 3.' },
  ]);
  const agent = createAgent({ model, tools: { add: addTool }, telemetry: { tracer: telemetryTracer } });
  return [await agent.run('first'), await agent.run('second')];
}

/** The process warnings `body` causes, once the ones emitted on its last tick are out. */
async function warningsOf(body: () => Promise<unknown>): Promise<Error[]> {
  const warnings: Error[] = [];
  const collect = (warning: Error) => warnings.push(warning);
  process.on('warning', collect);
  try {
    await body();
    await new Promise<void>((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', collect);
  }
  return warnings;
}

describe('a tracer that throws', () => {
  it('a span whose setAttribute throws still ends, every run has all its spans, and the process is told once', async () => {
    const warnings = await warningsOf(async () => {
      const results = await twoRuns(tracerWhoseSpansThrowFrom('setAttribute'));
      expect(results.map((result) => result.outcome)).toEqual(['completed', 'completed']);
    });
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names.filter((name) => name === 'invoke_agent')).toHaveLength(2);
    expect(names.filter((name) => name.startsWith('chat '))).toHaveLength(4);
    expect(names.filter((name) => name === 'execute_tool add')).toHaveLength(2);
    const told = warnings.filter((warning) => (warning as Error & { code?: string }).code === TELEMETRY_FAILED_WARNING);
    expect(told.map((warning) => warning.message)).toEqual([expect.stringContaining("the tracer's span.setAttribute threw (exporter on fire in setAttribute)")]);
  });

  it('a span whose setAttributes, setStatus or recordException throws still ends', async () => {
    for (const method of ['setAttributes', 'setStatus', 'recordException'] as const) {
      exporter.reset();
      const results = await twoRuns(tracerWhoseSpansThrowFrom(method));
      expect(results.map((result) => result.outcome)).toEqual(['completed', 'completed']);
      expect(exporter.getFinishedSpans().filter((span) => span.name === 'invoke_agent' || span.name.startsWith('chat '))).toHaveLength(6);
    }
  });

  it('a startSpan that throws leaves the runs untraced and unharmed', async () => {
    const results = await twoRuns({
      startSpan: () => {
        throw new Error('no tracer today');
      },
    } as unknown as Tracer);
    expect(results.map((result) => result.outcome)).toEqual(['completed', 'completed']);
    expect(results[1]!.text).toBe('It is 3.');
  });

  it("a context manager whose with throws leaves the tool calls unharmed: they run, outside the span's context", async () => {
    const broken: ContextManager = {
      active: () => ROOT_CONTEXT,
      with: () => {
        throw new Error('context manager on fire');
      },
      bind: (_context, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    context.setGlobalContextManager(broken);
    try {
      const results = await twoRuns(tracer);
      expect(results.map((result) => result.outcome)).toEqual(['completed', 'completed']);
      expect(results.map((result) => result.toolResults.map((toolResult) => toolResult.output as unknown))).toEqual([[3], [3]]);
    } finally {
      context.disable();
    }
  });
});
