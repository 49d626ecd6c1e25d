// loopchart/postgres: sessions on PostgreSQL (needs the `pg` package).
export { pgStore, type PgStoreOptions } from './pg-store.js';
