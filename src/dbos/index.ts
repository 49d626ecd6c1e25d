// loopchart/dbos: durable session turns on DBOS Transact (needs @dbos-inc/dbos-sdk and pg). See docs/scale-out.md.
export {
  registerSessionWorkflows,
  registerSessionQueue,
  SESSION_APPLICATION_VERSION,
  SESSION_QUEUE,
  SESSION_TURN_WORKFLOW,
  SESSION_INPUT_TOPIC,
  type SessionWorkflowOptions,
  type TurnInput,
  type TurnSummary,
} from './session-workflows.js';
export { sessionWorkerConfig, type SessionWorkerConfig } from './session-worker-config.js';
export { sessionClient, turnWorkflowId, CONTROL_NOT_PUBLISHED_WARNING, type SessionClient, type SessionClientOptions } from './session-client.js';
export { startWorkerRecovery, type WorkerRecoveryOptions } from './worker-recovery.js';
export { pgControlChannel, INVALID_CONTROL_MESSAGE_WARNING, type ControlChannel, type PgControlChannelOptions } from './pg-control-channel.js';
export { dbosSystemDatabaseUrl } from './system-database-url.js';
