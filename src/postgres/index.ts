// loopchart/postgres: sessions on PostgreSQL (needs the `pg` package).
export { pgStore, SESSION_CHANGED_CHANNEL, type PgStoreOptions } from './pg-store.js';
export { watchSession, type WatchSessionOptions } from './pg-session-watch.js';
