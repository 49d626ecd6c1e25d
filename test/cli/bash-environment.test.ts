/**
 * What of the CLI's environment a `bash` command gets: nothing that looks like a credential,
 * unless `--pass-env NAME` gives it, and stderr says what was left out.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCredentialVariable } from '../../src/secrets/credential-variables.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const TOKENS = { GITHUB_TOKEN: 'ghp_clitest0123456789', NPM_TOKEN: 'npm_clitest0123456789', DATABASE_URL: 'postgres://app:hunter22@db/app' };

/** The CLI's environment with these credentials and no other (the machine's own, a CI token, would join the notice's list). */
const withTokens = () => ({ ...Object.fromEntries(Object.entries(cleanEnv()).filter(([name, value]) => !isCredentialVariable(name, value))), ...TOKENS });

async function echoScript(cwd: string): Promise<string> {
  return writeScript(cwd, 'env.json', {
    prompt: 'Show the environment.',
    tools: ['bash'],
    approval: { allow: ['bash'] },
    turns: [{ toolCalls: [{ name: 'bash', input: { command: 'echo "[$GITHUB_TOKEN][$NPM_TOKEN][$DATABASE_URL][${HOME:+home}]" > seen.txt' } }] }, { text: 'Done.' }],
  });
}

describe('loopchart run: the environment of bash', () => {
  it('leaves out what looks like a credential, but for --pass-env NAME, and names what it left out on stderr', async () => {
    const cwd = await tempDir();
    const script = await echoScript(cwd);

    const { code, stderr } = await runCli(['run', script, '--cwd', cwd, '--pass-env', 'NPM_TOKEN'], { env: withTokens() });

    expect(code).toBe(0);
    expect(await readFile(path.join(cwd, 'seen.txt'), 'utf8')).toBe(`[][${TOKENS.NPM_TOKEN}][][home]\n`);
    expect(stderr).toMatch(/bash: its environment leaves out (\S+, )*DATABASE_URL, GITHUB_TOKEN(, \S+)* \(they look like credentials; --pass-env NAME passes one\)/);
    expect(stderr).not.toMatch(/leaves out [^\n]*NPM_TOKEN/);
  });

  it('refuses a name that would not be left out (a misspelt one would pass nothing), a provider key, and --pass-env without bash', async () => {
    const cwd = await tempDir();
    const script = await echoScript(cwd);

    const misspelt = await runCli(['run', script, '--cwd', cwd, '--pass-env', 'GITHUB_TOKN'], { env: withTokens() });
    const providerKey = await runCli(['run', script, '--cwd', cwd, '--pass-env', 'ANTHROPIC_API_KEY'], { env: withTokens() });
    const withoutBash = await runCli(['run', script, '--cwd', cwd, '--tools', 'read', '--pass-env', 'GITHUB_TOKEN'], { env: withTokens() });

    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain("--pass-env: GITHUB_TOKN is not left out of a command's environment");
    expect(providerKey.code).toBe(2);
    expect(providerKey.stderr).toContain('--pass-env: ANTHROPIC_API_KEY is a provider key, and provider keys never reach a command');
    expect(withoutBash.code).toBe(2);
    expect(withoutBash.stderr).toContain('--pass-env gives variables to bash, and the run has no bash tool (--tools)');
  });
});
