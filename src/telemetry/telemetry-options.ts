import { z } from 'zod';

/**
 * An OpenTelemetry `Tracer` (`trace.getTracer('my-app')`, `tracerProvider.getTracer('my-app')`),
 * typed by the one method loopchart calls, so that loopchart's published types do not need
 * `@opentelemetry/api` installed by an app that does not trace.
 */
export interface TelemetryTracer {
  startSpan(name: string, options?: object, context?: object): object;
}

/**
 * OpenTelemetry spans for an agent's runs (`createAgent({ telemetry })`), named after the AI SDK's
 * `telemetry` call option: `isEnabled`, `functionId`, `recordInputs`, `recordOutputs`, plus the
 * `tracer` that `@ai-sdk/otel` takes. Telemetry is on when this option is given, unless `isEnabled`
 * is `false`; without it the agent loads and does nothing of it. Needs the `@opentelemetry/api`
 * package (an optional peer dependency). See docs/telemetry.md.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { createAgent } from 'loopchart';
 *
 * const agent = createAgent({ model, tools, telemetry: { tracer: trace.getTracer('my-app'), functionId: 'support-bot' } });
 * ```
 */
export interface TelemetryOptions {
  /** Default `true` when `telemetry` is given; `false` turns telemetry off (nothing is loaded or called). */
  isEnabled?: boolean;
  /** The tracer spans are made with. Default: `trace.getTracer('loopchart')` of the global tracer provider. */
  tracer?: TelemetryTracer;
  /** The agent's name: `gen_ai.agent.name`, and the root span is `invoke_agent <functionId>`. */
  functionId?: string;
  /** Record each tool call's input (`gen_ai.tool.call.arguments`). Default `true`. */
  recordInputs?: boolean;
  /** Record each tool call's output (`gen_ai.tool.call.result`). Default `true`. */
  recordOutputs?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The `telemetry` option's schema (see `agentOptionsSchema`). */
export const telemetryOptionsSchema = z
  .object({
    isEnabled: z.boolean().optional(),
    tracer: z
      .custom<TelemetryTracer>((value) => isObject(value) && typeof value.startSpan === 'function', {
        message: "expected an OpenTelemetry Tracer, for example trace.getTracer('my-app') or tracerProvider.getTracer('my-app')",
      })
      .optional(),
    functionId: z.string().min(1).optional(),
    recordInputs: z.boolean().optional(),
    recordOutputs: z.boolean().optional(),
  })
  .strict();

/** Whether these options turn telemetry on. */
export function isTelemetryEnabled(options: TelemetryOptions | undefined): options is TelemetryOptions {
  return options !== undefined && options.isEnabled !== false;
}
