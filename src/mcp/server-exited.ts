/**
 * A stdio server's process exited by itself (it crashed, or gave up at
 * start), not stopped by `close()`: what ended the connection, with the exit
 * code or the signal, for the errors that would say only "Connection closed".
 *
 * @example
 * new McpServerExitedError(3, null).message; // 'the server exited with code 3'
 * new McpServerExitedError(null, 'SIGKILL').message; // 'the server was ended by SIGKILL'
 */
export class McpServerExitedError extends Error {
  override readonly name = 'McpServerExitedError';
  constructor(
    readonly code: number | null,
    readonly signal: NodeJS.Signals | null,
  ) {
    super(signal !== null ? `the server was ended by ${signal}` : `the server exited with code ${code ?? 'unknown'}`);
  }
}
