/**
 * A mistake on the command line (an unknown option, a bad value, a missing
 * argument or setting). The CLI prints the message with a pointer to `--help`
 * and exits with code 2.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
