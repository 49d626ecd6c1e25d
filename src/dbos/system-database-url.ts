/** DBOS's own default for `systemDatabaseIdleTransactionTimeoutMs`. */
export const DBOS_IDLE_TRANSACTION_TIMEOUT_MS = 60_000;

const SETTING = 'idle_in_transaction_session_timeout';

/**
 * The DBOS system database URL with its idle-in-transaction limit set when a
 * connection starts (the libpq `options` parameter), for `sessionWorkerConfig`
 * (which applies it itself) and `DBOSClient.create({ systemDatabaseUrl })`.
 *
 * Without it, DBOS sends `SET idle_in_transaction_session_timeout` on every
 * new connection of its pool while the query that asked for the connection is
 * already queued behind it, and `pg` 8 prints a DeprecationWarning ("Calling
 * client.query() when the client is already executing a query") in every
 * process. With the setting in the URL, DBOS sends no `SET`. The limit stays
 * the same: `timeoutMs` (DBOS's default, 60 s); 0 or less leaves the URL as it
 * is (the server's own setting, as DBOS does then), and so does a URL that
 * sets it already or is not a URL. Pure.
 *
 * @example
 * const client = await DBOSClient.create({ systemDatabaseUrl: dbosSystemDatabaseUrl(process.env.DATABASE_URL!) });
 * dbosSystemDatabaseUrl('postgres://u@db/chat') // 'postgres://u@db/chat?options=-c+idle_in_transaction_session_timeout%3D60000'
 */
export function dbosSystemDatabaseUrl(url: string, timeoutMs = DBOS_IDLE_TRANSACTION_TIMEOUT_MS): string {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const options = parsed.searchParams.get('options');
  if (options?.includes(SETTING)) return url;
  const setting = `-c ${SETTING}=${Math.max(1, Math.round(timeoutMs))}`;
  parsed.searchParams.set('options', options ? `${options} ${setting}` : setting);
  return parsed.toString();
}
