import type { Attributes, Exception, Span, SpanStatus, TimeInput, Tracer } from '@opentelemetry/api';
import { redact, redactValue } from '../secrets/redact.js';

/** The one method of a tracer the span recorder calls. */
export type SpanStarter = Pick<Tracer, 'startSpan'>;

/**
 * The tracer as the agent's spans reach it when the agent has `secrets`: every span name (a tool
 * name the model made up is one), attribute, status message, event and exception has them
 * replaced by `[redacted]` before the tracer (and so its exporter) sees it. Spans keep their identity for parenting (`spanContext` is the tracer's own).
 * Without secrets, the tracer itself.
 *
 * @example
 * ```ts
 * const tracer = redactingTracer(trace.getTracer('my-app'), ['sk-live-123456']);
 * ```
 */
export function redactingTracer(tracer: SpanStarter, secrets: readonly string[]): SpanStarter {
  if (secrets.length === 0) return tracer;
  const attributes = <T extends Attributes | undefined>(value: T): T => redactValue(value, secrets);
  return {
    startSpan: (name, options, context) =>
      redactingSpan(tracer.startSpan(redact(name, secrets), options ? { ...options, attributes: attributes(options.attributes) } : options, context), secrets),
  };
}

function redactingSpan(span: Span, secrets: readonly string[]): Span {
  const text = (value: string) => redact(value, secrets);
  const redacting: Span = {
    spanContext: () => span.spanContext(),
    setAttribute: (key, value) => (span.setAttribute(key, redactValue(value, secrets)), redacting),
    setAttributes: (attributes) => (span.setAttributes(redactValue(attributes, secrets)), redacting),
    addEvent: (name: string, attributesOrStartTime?: Attributes | TimeInput, startTime?: TimeInput) =>
      (span.addEvent(text(name), isAttributes(attributesOrStartTime) ? redactValue(attributesOrStartTime, secrets) : attributesOrStartTime, startTime), redacting),
    addLink: (link) => (span.addLink(link), redacting),
    addLinks: (links) => (span.addLinks(links), redacting),
    setStatus: (status: SpanStatus) => (span.setStatus(status.message === undefined ? status : { ...status, message: text(status.message) }), redacting),
    updateName: (name) => (span.updateName(text(name)), redacting),
    end: (endTime) => span.end(endTime),
    isRecording: () => span.isRecording(),
    recordException: (exception: Exception, time?: TimeInput) => span.recordException(redactedException(exception, secrets), time),
  };
  return redacting;
}

function redactedException(exception: Exception, secrets: readonly string[]): Exception {
  if (typeof exception === 'string') return redact(exception, secrets);
  const text = (value: string | undefined) => (value === undefined ? undefined : redact(value, secrets));
  const { name, message, stack, code } = exception;
  return {
    name: text(name) ?? 'Error',
    ...(message !== undefined ? { message: text(message) } : {}),
    ...(stack !== undefined ? { stack: text(stack) } : {}),
    ...(code !== undefined ? { code: typeof code === 'string' ? redact(code, secrets) : code } : {}),
  };
}

function isAttributes(value: Attributes | TimeInput | undefined): value is Attributes {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
