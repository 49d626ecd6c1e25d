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
 * instead. A DBOS upgrade that adds a key fails the typecheck below until it is listed.
 */
const SESSION_WORKER_CONFIG_KEYS = [
  'name', 'systemDatabaseUrl', 'systemDatabasePoolSize', 'systemDatabasePool', 'systemDatabaseSchemaName', 'systemDatabasePollingConcurrency',
  'enableOTLP', 'tracingEnabled', 'logLevel', 'logger', 'addContextMetadata', 'otlpTracesEndpoints', 'otlpLogsEndpoints', 'otelAttributeFormat',
  'adminPort', 'runAdminServer', 'executorID', 'serializer', 'enablePatching', 'listenQueues', 'maxConcurrentQueueDispatches',
  'schedulerPollingIntervalMs', 'useListenNotify', 'notificationCoalesceMs', 'observabilityQueryTimeoutMs', 'systemDatabaseIdleTransactionTimeoutMs',
  'runMigrations',
] as const satisfies ReadonlyArray<keyof SessionWorkerConfig>;

/** `true` only while the list above names every key of `SessionWorkerConfig`. */
type ListsEveryKey = Exclude<keyof SessionWorkerConfig, (typeof SESSION_WORKER_CONFIG_KEYS)[number]> extends never ? true : false;
const listsEveryKey: ListsEveryKey = true;
void listsEveryKey;

const sessionWorkerConfigKeys = knownKeys(SESSION_WORKER_CONFIG_KEYS);

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
