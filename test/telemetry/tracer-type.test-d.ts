import type { Tracer } from '@opentelemetry/api';
import { describe, expectTypeOf, it } from 'vitest';
import type { TelemetryTracer } from '../../src/index.js';

// Checked by `tsc`: loopchart's own tracer type needs no @opentelemetry/api, yet takes a real Tracer.
describe('TelemetryTracer', () => {
  it('accepts an OpenTelemetry Tracer', () => {
    expectTypeOf<Tracer>().toExtend<TelemetryTracer>();
  });
});
