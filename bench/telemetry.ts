/**
 * Telemetry overhead: the 50-step tool loop of `bench/loop.ts` (one call of a tool that returns at
 * once per step, then a 51st step that answers "done") on a zero-latency model, without the
 * `telemetry` option, with a no-op tracer (`trace.getTracer` while no tracer provider is
 * registered: loopchart does all its span work, the tracer records nothing), and with an SDK
 * tracer provider exporting every span to an `InMemorySpanExporter` through a `SimpleSpanProcessor`.
 */
import { trace, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createAgent } from '../src/index.js';
import { amount, check, echoTool, measureRounds, median, pairedRatio, ratio, times as asTimes, toolLoopModel, type Row } from './support.js';

const TOOL_STEPS = 50;
const STEPS = TOOL_STEPS + 1;
/** Per run: the root, a chat span per step and an execute_tool span per tool call. */
const SPANS_PER_RUN = 1 + STEPS + TOOL_STEPS;

async function toolLoop(tracer?: Tracer): Promise<void> {
  const agent = createAgent({
    model: toolLoopModel(TOOL_STEPS),
    tools: { echo: echoTool },
    maxSteps: STEPS,
    ...(tracer ? { telemetry: { tracer } } : {}),
  });
  const result = await agent.run('go');
  check(result.outcome === 'completed' && result.stepCount === STEPS && result.toolCallCount === TOOL_STEPS, `the loop went wrong: ${result.outcome}, ${result.stepCount} steps`);
}

export async function telemetryBench(): Promise<Row[]> {
  const noopTracer = trace.getTracer('loopchart-bench');
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const sdkTracer = provider.getTracer('loopchart-bench');
  const inMemory = async () => {
    exporter.reset();
    await toolLoop(sdkTracer);
    const spans = exporter.getFinishedSpans();
    check(spans.length === SPANS_PER_RUN, `the in-memory exporter has ${spans.length} spans, expected ${SPANS_PER_RUN}`);
  };
  try {
    const times = await measureRounds(12, { none: () => toolLoop(), noop: () => toolLoop(noopTracer), inMemory }, { warmup: 2, runsPerBlock: 3 });
    const perStep = (runs: number[]) => `${(median(runs) / STEPS).toFixed(3)} ms/step`;
    const noop = pairedRatio(times.noop, times.none);
    const recorded = pairedRatio(times.inMemory, times.none);
    return [
      { figure: `loopchart, ${TOOL_STEPS}-step tool loop, no telemetry option`, value: perStep(times.none), measure: amount(median(times.none) / STEPS, 'ms', 3) },
      { figure: '  same loop, telemetry with a no-op tracer (no provider registered)', value: perStep(times.noop), ratio: `${ratio(noop)} no telemetry`, measure: asTimes(noop), target: '<= 1.1x', max: 1.1 },
      {
        figure: `  same loop, telemetry into an InMemorySpanExporter (${SPANS_PER_RUN} spans a run)`,
        value: perStep(times.inMemory),
        ratio: `${ratio(recorded)} no telemetry`,
        measure: asTimes(recorded),
        target: '<= 1.5x',
        max: 1.5,
      },
    ];
  } finally {
    await provider.shutdown();
  }
}
