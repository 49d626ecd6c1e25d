/**
 * A key in tool output that a cut falls inside — bash's 50 KB tail cut, the
 * model-facing middle cut of a long result — leaves no piece of itself in any
 * output of the CLI: stdout (`--events`, `--json`), `--trace`, `--report` and
 * the session files.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASH_MAX_OUTPUT_BYTES } from '../../src/tools/bash.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

const KEY = 'sk-CUTKEY-9d2f7a41c6b83e05QZ';
beforeAll(() => buildCli(), 60_000);

/** Every piece of the key four characters long: none may be in an output (three characters say nothing of a key). */
const piecesOf = (key: string) => Array.from({ length: key.length - 3 }, (_, start) => key.slice(start, start + 4));

/** A command printing one line of `before` dots, the key, and `after` dots. */
const lineWithKey = (before: number, after: number) =>
  `head -c ${before} /dev/zero | tr '\\0' .; printf %s '${KEY}'; head -c ${after} /dev/zero | tr '\\0' .`;

describe('the key at a cut', () => {
  it('bash\'s tail cut and the middle cut inside the key leave no piece of it in --events, --json, --trace, --report or the session', async () => {
    const dir = await tempDir();
    // The tail cut keeps the last 50 KB: all of the key but its first character would be in it.
    const tailCut = lineWithKey(9000, BASH_MAX_OUTPUT_BYTES - (KEY.length - 1));
    // A 51,195-byte line passes bash whole; with "exit code 0" it is over 50 KB, and the middle cut keeps its first 25,600 bytes: ten characters of the key.
    const middleCut = lineWithKey(25_600 - 10, 51_195 - 25_600 - (KEY.length - 10));
    const script = await writeScript(dir, 'cuts.json', {
      prompt: 'Print the long lines.',
      tools: ['bash'],
      approval: { allow: ['bash'] },
      turns: [
        { toolCalls: [{ name: 'bash', input: { command: tailCut } }, { name: 'bash', input: { command: middleCut } }] },
        { text: 'Done.' },
      ],
    });
    const files = { trace: path.join(dir, 'run.trace.json'), report: path.join(dir, 'run.html') };
    const sessions = path.join(dir, 'sessions');
    const env = cleanEnv({ CUT_TEST_API_KEY: KEY });

    const events = await runCli(['run', script, '--events', '--session', sessions, '--trace', files.trace, '--report', files.report], { env });
    const json = await runCli(['run', script, '--json'], { env });

    expect(events.code).toBe(0);
    expect(json.code).toBe(0);
    const outputs: Record<string, string> = { events: events.stdout, json: json.stdout, stderr: events.stderr + json.stderr };
    for (const [name, file] of Object.entries(files)) outputs[name] = await readFile(file, 'utf8');
    for (const name of await readdir(sessions)) outputs[`session ${name}`] = await readFile(path.join(sessions, name), 'utf8');
    expect(outputs.json).toContain('cut here');
    for (const [name, text] of Object.entries(outputs)) {
      expect(piecesOf(KEY).filter((piece) => text.includes(piece)), name).toEqual([]);
    }
  });
});
