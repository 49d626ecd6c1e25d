import { createRequire } from 'node:module';
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module. */
export type OtelApi = typeof OpenTelemetryApi;

let loaded: OtelApi | undefined;

/**
 * Loads `@opentelemetry/api` (an optional peer dependency) the first time an agent with telemetry
 * is created; never at import. The API keeps its state (the global tracer provider, the context
 * manager) on `globalThis`, so this copy and the app's share it.
 *
 * @throws Error when the package is not installed, saying how to install it.
 */
export function loadOtelApi(): OtelApi {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  } catch (error) {
    throw new Error(`telemetry needs the @opentelemetry/api package (npm install @opentelemetry/api): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return loaded;
}
