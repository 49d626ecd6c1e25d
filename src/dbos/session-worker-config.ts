import type { DBOSConfig } from '@dbos-inc/dbos-sdk';
import { knownKeys, parseOptions } from '../core/options-check.js';
import { SESSION_APPLICATION_VERSION } from './session-workflows.js';
import { dbosSystemDatabaseUrl } from './system-database-url.js';

/** What a session worker's DBOS configuration may hold: DBOS's own keys, less the one loopchart pins. */
export type SessionWorkerConfig = Omit<DBOSConfig, 'applicationVersion'>;

/**
 * Every key of the installed DBOS's `DBOSConfig` but `applicationVersion`. DBOS stores whatever
 * `setConfig` is given and reads only the keys it knows, so a misspelt one
 * (`systemDatabaseURL`) would leave DBOS on its default database in silence; checked here
 * instead. `satisfies` makes the typecheck fail when a DBOS upgrade adds a key not listed here.
 */
const SESSION_WORKER_CONFIG_KEYS = {
  name: true,
  systemDatabaseUrl: true,
  systemDatabasePoolSize: true,
  systemDatabasePool: true,
  systemDatabaseSchemaName: true,
  systemDatabasePollingConcurrency: true,
  enableOTLP: true,
  tracingEnabled: true,
  logLevel: true,
  logger: true,
  addContextMetadata: true,
  otlpTracesEndpoints: true,
  otlpLogsEndpoints: true,
  otelAttributeFormat: true,
  adminPort: true,
  runAdminServer: true,
  executorID: true,
  serializer: true,
  enablePatching: true,
  listenQueues: true,
  maxConcurrentQueueDispatches: true,
  schedulerPollingIntervalMs: true,
  useListenNotify: true,
  notificationCoalesceMs: true,
  observabilityQueryTimeoutMs: true,
  systemDatabaseIdleTransactionTimeoutMs: true,
  runMigrations: true,
} satisfies Record<keyof SessionWorkerConfig, true>;

const sessionWorkerConfigKeys = knownKeys(Object.keys(SESSION_WORKER_CONFIG_KEYS));

/**
 * DBOS configuration for session workers: `DBOS.setConfig(sessionWorkerConfig({ … }))`. Pins the
 * application version to the session format ({@link SESSION_APPLICATION_VERSION}), and sets the
 * system database's idle-in-transaction limit in its URL ({@link dbosSystemDatabaseUrl}), so that
 * no DBOS connection makes `pg` warn.
 *
 * @example
 * ```ts
 * DBOS.setConfig(sessionWorkerConfig({ name: 'chat', systemDatabaseUrl: process.env.DATABASE_URL, executorID: 'worker-1' }));
 * ```
 * @throws TypeError naming a key DBOS does not know (it would be ignored), or `applicationVersion`
 * (the session format decides it: workers of another version would not recover these workflows).
 */
export function sessionWorkerConfig(config: SessionWorkerConfig): DBOSConfig {
  if (config !== null && typeof config === 'object' && 'applicationVersion' in config) {
    throw new TypeError(
      `Invalid sessionWorkerConfig options: applicationVersion is set by sessionWorkerConfig to ${SESSION_APPLICATION_VERSION} (the session format's), so that every worker recovers every session turn; leave it out`,
    );
  }
  parseOptions('sessionWorkerConfig', sessionWorkerConfigKeys, config);
  const { systemDatabaseUrl, systemDatabaseIdleTransactionTimeoutMs } = config;
  return {
    ...config,
    ...(systemDatabaseUrl !== undefined ? { systemDatabaseUrl: dbosSystemDatabaseUrl(systemDatabaseUrl, systemDatabaseIdleTransactionTimeoutMs) } : {}),
    applicationVersion: SESSION_APPLICATION_VERSION,
  };
}
