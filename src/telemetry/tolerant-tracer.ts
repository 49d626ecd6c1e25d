import type { Span, SpanContext } from '@opentelemetry/api';
import type { OtelApi } from './otel-api.js';
import type { SpanStarter } from './redacting-tracer.js';

/** The `code` of the warning a tracer that throws gets, for `process.on('warning')` filters. */
export const TELEMETRY_FAILED_WARNING = 'LOOPCHART_TELEMETRY_FAILED';

/** What to say of an OpenTelemetry call that threw (`the tracer's span.end`): what it said, and what becomes of the spans. */
export function telemetryFailedMessage(call: string, error: unknown): string {
  return (
    `telemetry: ${call} threw (${error instanceof Error ? error.message : String(error)}); ` +
    'the runs go on and every other span call is still made, but the spans may lack what that call would have added. Told once per process.'
  );
}

/**
 * The tracer as the span recorder calls it: a throw of `startSpan` gives a span that does not record
 * (the run makes no other span), and a throw of a span's method is skipped, so that the calls after
 * it (its `end` above all) are still made. Each failure goes to `report`, which tells of the first.
 *
 * @example
 * ```ts
 * const tracer = tolerantTracer(api, redactingTracer(appTracer, secrets), warnOnce(TELEMETRY_FAILED_WARNING));
 * ```
 */
export function tolerantTracer(api: OtelApi, tracer: SpanStarter, report: (message: string) => void): SpanStarter {
  const attempt = <T>(call: string, run: () => T, fallback: () => T): T => {
    try {
      return run();
    } catch (error) {
      report(telemetryFailedMessage(`the tracer's ${call}`, error));
      return fallback();
    }
  };
  return {
    startSpan: (name, options, context) => {
      const span = attempt<Span | undefined>('startSpan', () => tracer.startSpan(name, options, context), () => undefined);
      return span ? tolerantSpan(api, span, attempt) : api.trace.wrapSpanContext(api.INVALID_SPAN_CONTEXT);
    },
  };
}

function tolerantSpan(api: OtelApi, span: Span, attempt: <T>(call: string, run: () => T, fallback: () => T) => T): Span {
  const skip = (call: string, run: () => unknown): Span => {
    attempt(call, run, () => undefined);
    return tolerant;
  };
  const tolerant: Span = {
    spanContext: () => attempt<SpanContext>('span.spanContext', () => span.spanContext(), () => api.INVALID_SPAN_CONTEXT),
    setAttribute: (key, value) => skip('span.setAttribute', () => span.setAttribute(key, value)),
    setAttributes: (attributes) => skip('span.setAttributes', () => span.setAttributes(attributes)),
    addEvent: (name, attributesOrStartTime, startTime) => skip('span.addEvent', () => span.addEvent(name, attributesOrStartTime, startTime)),
    addLink: (link) => skip('span.addLink', () => span.addLink(link)),
    addLinks: (links) => skip('span.addLinks', () => span.addLinks(links)),
    setStatus: (status) => skip('span.setStatus', () => span.setStatus(status)),
    updateName: (name) => skip('span.updateName', () => span.updateName(name)),
    end: (endTime) => void skip('span.end', () => span.end(endTime)),
    isRecording: () => attempt('span.isRecording', () => span.isRecording(), () => true),
    recordException: (exception, time) => void skip('span.recordException', () => span.recordException(exception, time)),
  };
  return tolerant;
}
