/**
 * Which directories a command needs from `/tmp`, which the sandbox replaces with an empty one. A
 * program installed under `/tmp` (a Node unpacked into a temporary directory, a tool a CI job
 * downloaded) would otherwise be "No such file or directory" inside, though the same command runs
 * outside. Pure: the caller checks that each exists.
 */
import path from 'node:path';

const TMP = '/tmp';

/**
 * The directories under `/tmp` that the command is looked up in: each absolute entry of `PATH`
 * there (its interpreter, for a script whose `#!` line names one through `env`, is looked up on
 * the same `PATH`), and the command's own directory when it is given as a path. `/tmp` itself is
 * never one: showing it would show every other program's temporary files.
 *
 * @example
 * programDirectories('node', '/tmp/node22/bin:/usr/bin', '/home/me/ws') // ['/tmp/node22/bin']
 * programDirectories('./server.sh', '/usr/bin', '/tmp/ws/tools') // ['/tmp/ws/tools']
 */
export function programDirectories(command: string, pathVariable: string | undefined, cwd: string): string[] {
  const candidates = (pathVariable ?? '').split(path.delimiter).filter((entry) => path.isAbsolute(entry));
  if (command.includes('/')) candidates.push(path.dirname(path.resolve(cwd, command)));
  const inTmp = candidates.map((directory) => path.normalize(directory).replace(/(.)\/$/, '$1')).filter((directory) => directory.startsWith(`${TMP}/`));
  return [...new Set(inTmp)];
}
