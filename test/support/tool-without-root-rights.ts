/**
 * A built-in tool run in another process that the file modes bind: as root, through util-linux's
 * `setpriv` without any capability (root reads and writes everything otherwise, whatever the
 * mode; it still reaches every path it owns, such as a clone or a Node binary in a private
 * directory). For tests of what the tools do with a file or directory they may not read or write.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { BuiltinToolName } from '../../src/tools/index.js';
import { externalBinary } from './external-binary.js';

const FIXTURE = path.join(import.meta.dirname, '../fixtures/tools/run-tool.ts');
const asRoot = process.getuid?.() === 0;
const setpriv = asRoot ? externalBinary({ name: 'setpriv', debianPackage: 'util-linux', paths: ['/usr/bin/setpriv', '/bin/setpriv'] }) : undefined;

/** False only as root without `setpriv` (with a notice): skip the tests then. */
export const modesBindTools = !asRoot || setpriv !== undefined;

/**
 * The tool's result, `{ ok: false, text: message }` when it failed.
 *
 * @example
 * expect(await runToolBoundByModes(ws.root, 'write', { path: 'ro.txt', content: 'x' })).toEqual({ ok: false, text: "Permission denied for 'ro.txt'" });
 */
export function runToolBoundByModes(workspace: string, name: BuiltinToolName, input: object): Promise<{ ok: boolean; text: string }> {
  const node = [process.execPath, '--import', 'tsx', FIXTURE, workspace, name, JSON.stringify(input)];
  const [program, ...args] = setpriv !== undefined ? [setpriv, '--bounding-set=-all', '--inh-caps=-all', '--', ...node] : node;
  return new Promise((resolve, reject) => {
    execFile(program!, args, { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as { ok: boolean; text: string }),
    );
  });
}
