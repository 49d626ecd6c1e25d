/** Turns Node file-system errors into messages a model can act on. */

/** The `code` of a Node system error (`'ENOENT'`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/**
 * Rewrites a file-system error about `userPath` into an `Error` with a short,
 * path-relative message; errors without a known code keep their message.
 *
 * @example
 * throw describeFsError(error, 'src/a.ts'); // "Path 'src/a.ts' does not exist"
 */
export function describeFsError(error: unknown, userPath: string): Error {
  switch (errorCode(error)) {
    case 'ENOENT':
      // ls shows a name that is not valid UTF-8 with U+FFFD, and no file has the name so shown.
      if (userPath.includes('\uFFFD')) {
        return new Error(
          `Path '${userPath}' does not exist: if ls showed it, its name is not valid UTF-8 (U+FFFD stands for bytes that are not), and no tool can open it by that name; rename it with bash`,
          { cause: error },
        );
      }
      return new Error(`Path '${userPath}' does not exist`, { cause: error });
    case 'ENOTDIR':
      return new Error(`Path '${userPath}' goes through something that is not a directory`, { cause: error });
    case 'EISDIR':
      return new Error(`Path '${userPath}' is a directory`, { cause: error });
    case 'EACCES':
    case 'EPERM':
      return new Error(`Permission denied for '${userPath}'`, { cause: error });
    case 'ENAMETOOLONG':
      return new Error(`Path '${userPath}' has a name longer than the file system allows (255 bytes for one name, 4096 for a whole path on Linux); give a shorter one`, {
        cause: error,
      });
    case 'ELOOP':
      return new Error(`Path '${userPath}' has too many levels of symbolic links`, { cause: error });
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}
