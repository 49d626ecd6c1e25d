import type { Tracer } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { addTool } from '../support/tools.js';

// Spies around the two ways into telemetry: the span recorder's factory and the loader of @opentelemetry/api.
vi.mock('../../src/telemetry/span-recorder.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/telemetry/span-recorder.js')>();
  return { ...actual, createSpanRecorder: vi.fn(actual.createSpanRecorder) };
});
vi.mock('../../src/telemetry/otel-api.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/telemetry/otel-api.js')>();
  return { ...actual, loadOtelApi: vi.fn(actual.loadOtelApi) };
});

const { createSpanRecorder } = await import('../../src/telemetry/span-recorder.js');
const { loadOtelApi } = await import('../../src/telemetry/otel-api.js');

/** A tracer that records every call made to it (and makes no spans). */
function spyTracer(): Tracer & { calls: string[] } {
  const calls: string[] = [];
  const span = new Proxy({}, { get: (_target, name) => (name === 'spanContext' ? () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }) : () => span) });
  return {
    calls,
    startSpan: (name: string) => {
      calls.push(name);
      return span as never;
    },
    startActiveSpan: () => {
      calls.push('startActiveSpan');
      return undefined as never;
    },
  };
}

const toolRun = () => ({ model: scriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: '3' }]), tools: { add: addTool } });

afterEach(() => vi.clearAllMocks());

describe('telemetry off', () => {
  it('an agent without the telemetry option loads nothing of OpenTelemetry and makes no span', async () => {
    const result = await createAgent(toolRun()).run('go');
    expect(result.outcome).toBe('completed');
    expect(createSpanRecorder).not.toHaveBeenCalled();
    expect(loadOtelApi).not.toHaveBeenCalled();
  });

  it('isEnabled: false leaves the given tracer untouched', async () => {
    const tracer = spyTracer();
    const result = await createAgent({ ...toolRun(), telemetry: { isEnabled: false, tracer } }).run('go');
    expect(result.outcome).toBe('completed');
    expect(tracer.calls).toEqual([]);
    expect(createSpanRecorder).not.toHaveBeenCalled();
    expect(loadOtelApi).not.toHaveBeenCalled();
  });

  it('with a tracer the same run goes through the recorder and the tracer (the spies above see telemetry when it is on)', async () => {
    const tracer = spyTracer();
    await createAgent({ ...toolRun(), telemetry: { tracer } }).run('go');
    expect(createSpanRecorder).toHaveBeenCalledTimes(1);
    expect(loadOtelApi).toHaveBeenCalled();
    expect(tracer.calls).toEqual(['invoke_agent', 'chat scripted', 'execute_tool add', 'chat scripted']);
  });
});
