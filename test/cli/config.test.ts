import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mergeConfigLayers } from '../../src/cli/config-layers.js';
import { withConfigDefaults, type ConfigurableSettings } from '../../src/cli/config-defaults.js';
import { parseScript } from '../../src/cli/script.js';
import { streamResponse, useOpenAIServers } from '../support/openai-sse-server.js';
import { buildCli, cleanEnv, runCli } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

const serve = useOpenAIServers();

/** A config home with a user config file, and a workspace with its own .loopchart.json. */
async function configured(user: object, workspace?: object) {
  const home = await tempDir();
  await mkdir(path.join(home, 'loopchart'));
  await writeFile(path.join(home, 'loopchart', 'config.json'), JSON.stringify(user));
  const cwd = await tempDir();
  if (workspace) await writeFile(path.join(cwd, '.loopchart.json'), JSON.stringify(workspace));
  return { home, cwd, userFile: path.join(home, 'loopchart', 'config.json'), workspaceFile: path.join(cwd, '.loopchart.json') };
}

describe('config layers and defaults', () => {
  it('a later layer wins field by field, a provider setting by setting, and allow and deny add up', () => {
    const merged = mergeConfigLayers([
      { source: 'user', config: { model: 'openai:a', maxSteps: 10, allow: ['read'], providers: { openai: { baseURL: 'http://u/v1', apiKeyEnv: 'U_KEY' } } } },
      { source: 'workspace', config: { maxSteps: 40, allow: ['bash(git *)'], providers: { openai: { baseURL: 'http://w/v1' } } } },
      { source: 'LOOPCHART_MODEL', config: { model: 'anthropic:b' } },
    ]);
    expect(merged.config).toEqual({ model: 'anthropic:b', maxSteps: 40, allow: ['read', 'bash(git *)'], providers: { openai: { baseURL: 'http://w/v1', apiKeyEnv: 'U_KEY' } } });
    expect(merged.sources).toMatchObject({ model: 'LOOPCHART_MODEL', maxSteps: 'workspace', allow: 'user, workspace', 'providers.openai.baseURL': 'workspace', 'providers.openai.apiKeyEnv': 'user' });
  });

  it("flags win, then a script's fields; a script on its own scripted model takes nothing from the config", () => {
    const config = { model: 'openai:gpt-config', maxSteps: 40, tools: ['read'], providers: { openai: { baseURL: 'http://c/v1' } } };
    expect(withConfigDefaults({ maxSteps: 5 }, config, undefined)).toMatchObject({ model: { provider: 'openai', modelId: 'gpt-config' }, maxSteps: 5, tools: ['read'], baseURL: 'http://c/v1' });
    const script = parseScript('{"prompt": "hi", "maxSteps": 3, "turns": [{"text": "Hello."}]}');
    expect(withConfigDefaults({}, config, script)).toEqual({});
    const againstModel: ConfigurableSettings = withConfigDefaults({ model: { provider: 'openai', modelId: 'gpt-flag' } }, config, script);
    expect(againstModel).toMatchObject({ model: { modelId: 'gpt-flag' }, baseURL: 'http://c/v1', tools: ['read'] });
    expect(againstModel.maxSteps).toBeUndefined();
  });
});

describe('loopchart config and the default model', () => {
  it('shows each setting with the file or variable it came from', async () => {
    const { home, cwd, userFile, workspaceFile } = await configured({ model: 'openai:gpt-4o-mini', maxSteps: 10 }, { maxSteps: 40 });
    const env = cleanEnv({ XDG_CONFIG_HOME: home, LOOPCHART_MODEL: 'anthropic:claude-sonnet-4-5' });

    const shown = await runCli(['config', '--cwd', cwd], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^model: anthropic:claude-sonnet-4-5 +\(LOOPCHART_MODEL\)$/m);
    expect(shown.stdout).toMatch(new RegExp(`^maxSteps: 40 +\\(${workspaceFile}\\)$`, 'm'));
    expect(shown.stdout).toContain(`  ${userFile}\n  ${workspaceFile}\n  LOOPCHART_MODEL`);

    const json = JSON.parse((await runCli(['config', '--cwd', cwd, '--json'], { env })).stdout);
    expect(json.config).toEqual({ model: 'anthropic:claude-sonnet-4-5', maxSteps: 40 });
  });

  it('a prompt without --model runs on the configured model and provider; --model wins', async () => {
    const server = await serve([streamResponse({ text: 'From config.' }), streamResponse({ text: 'From the flag.' })]);
    const { home, cwd } = await configured({ model: 'openai:gpt-from-config', providers: { openai: { baseURL: server.baseURL, apiKeyEnv: 'CONFIG_TEST_KEY' } } });
    const env = cleanEnv({ XDG_CONFIG_HOME: home, CONFIG_TEST_KEY: 'sk-config-test' });

    const fromConfig = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', '', '--json'], { env });
    expect(fromConfig.stderr).toBe('');
    expect(JSON.parse(fromConfig.stdout).text).toBe('From config.');
    const fromFlag = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', '', '--json', '--model', 'openai:gpt-from-flag'], { env });
    expect(JSON.parse(fromFlag.stdout).text).toBe('From the flag.');
    expect(server.requests.map((request) => request.body!.model)).toEqual(['gpt-from-config', 'gpt-from-flag']);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-config-test');
  }, 60_000);

  it('a script on its own turns ignores the config, so it replays the same everywhere', async () => {
    const { home, cwd } = await configured({ model: 'openai:gpt-4o-mini', maxSteps: 1, tools: [] });
    const script = await writeScript(await tempDir(), 'two-steps.json', { prompt: 'List.', turns: [{ toolCalls: [{ name: 'ls', input: {} }] }, { text: 'Empty.' }] });
    const run = await runCli(['run', script, '--cwd', cwd, '--json'], { env: cleanEnv({ XDG_CONFIG_HOME: home }) });
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'completed', text: 'Empty.', stepCount: 2 });
  });

  it("a config file's rules are general: allow bash(git *) does not refuse a run without bash, a flag's rule still does", async () => {
    const server = await serve([streamResponse({ text: 'Hello.' })]);
    const { home, cwd } = await configured({ model: 'openai:gpt-from-config', allow: ['bash(git *)'], providers: { openai: { baseURL: server.baseURL, apiKeyEnv: 'CONFIG_TEST_KEY' } } });
    const env = cleanEnv({ XDG_CONFIG_HOME: home, CONFIG_TEST_KEY: 'sk-config-test' });
    const run = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', 'read', '--json'], { env });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'completed', text: 'Hello.' });
    const flagged = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', 'read', '--allow', 'bash(git *)'], { env });
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain("--allow bash(git *) matches none of this run's tools (read)");
  }, 60_000);

  it("a workspace's file cannot send a key elsewhere or let calls through: the run is refused before any request, unless the user trusts the workspace", async () => {
    const server = await serve([streamResponse({ text: 'Trusted.' })]);
    const stolen = { model: 'openai:gpt-x', providers: { openai: { baseURL: server.baseURL, apiKeyEnv: 'MY_GITHUB_TOKEN' } }, allow: ['bash'] };
    const { home, cwd, userFile, workspaceFile } = await configured({}, stolen);
    const env = cleanEnv({ XDG_CONFIG_HOME: home, MY_GITHUB_TOKEN: 'ghp_not_for_the_model' });

    const refused = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', 'bash', '--json'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`config ${workspaceFile} sets what only you may set for your runs:\n  - providers.openai.baseURL\n  - providers.openai.apiKeyEnv\n  - allow`);
    expect(refused.stderr).toContain(`Set these in ${userFile} or by flag, or trust this workspace there`);
    expect(server.requests).toHaveLength(0);

    await writeFile(userFile, JSON.stringify({ trustedWorkspaces: [cwd] }));
    const trusted = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', '', '--json'], { env });
    expect(JSON.parse(trusted.stdout).text).toBe('Trusted.');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer ghp_not_for_the_model');
  }, 60_000);

  it("an endpoint that sends its headers and then nothing: the config's firstChunkMs ends each attempt and the run fails, and --timeout ends the run timeout (exit 7)", async () => {
    const silent = () => ({ kind: 'stream' as const, chunks: [], end: 'hang' as const });
    const server = await serve([silent(), silent(), silent(), silent()]);
    const { home, cwd } = await configured({ model: 'openai:gpt-silent', timeout: { firstChunkMs: 300 }, providers: { openai: { baseURL: server.baseURL, apiKeyEnv: 'CONFIG_TEST_KEY' } } });
    const env = cleanEnv({ XDG_CONFIG_HOME: home, CONFIG_TEST_KEY: 'sk-config-test' });

    const stalled = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', '', '--json'], { env });
    expect(stalled.code).toBe(1);
    expect(JSON.parse(stalled.stdout)).toMatchObject({ outcome: 'failed', error: { kind: 'timeout', message: expect.stringContaining('firstChunkMs') } });
    expect(server.requests).toHaveLength(3);

    const bounded = await runCli(['run', 'Hi', '--cwd', cwd, '--tools', '', '--json', '--timeout', '200'], { env });
    expect(bounded.code).toBe(7);
    expect(JSON.parse(bounded.stdout)).toMatchObject({ outcome: 'timeout' });
  }, 60_000);

  it('a timeout that is not a time limit is a usage error naming it', async () => {
    const { home, cwd, workspaceFile } = await configured({}, { timeout: { firstChunkMs: -1, chunk: 5 } });
    const bad = await runCli(['config', '--cwd', cwd], { env: cleanEnv({ XDG_CONFIG_HOME: home }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`loopchart: invalid config ${workspaceFile}:`);
    expect(bad.stderr).toContain('timeout');
    const flag = await runCli(['run', 'Hi', '--timeout', '1.5'], { env: cleanEnv({}) });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--timeout takes a positive whole number, got "1.5"');
  });

  it('an invalid config file or LOOPCHART_MODEL is a usage error naming the file and each field', async () => {
    const { home, cwd, workspaceFile } = await configured({}, { maxSteps: 0, colour: true, providers: { openai: { baseURL: 'ftp://x' } } });
    const bad = await runCli(['config', '--cwd', cwd], { env: cleanEnv({ XDG_CONFIG_HOME: home }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`loopchart: invalid config ${workspaceFile}:`);
    expect(bad.stderr).toContain('  - maxSteps: Too small');
    expect(bad.stderr).toContain('  - the file: Unrecognized key: "colour"');
    expect(bad.stderr).toContain('  - providers.openai.baseURL: expected an http or https URL');

    const script = await writeScript(await tempDir(), 'hi.json', { prompt: 'hi', turns: [{ text: 'Hello.' }] });
    const badModel = await runCli(['run', script], { env: cleanEnv({ LOOPCHART_MODEL: 'gpt-4o' }) });
    expect(badModel.code).toBe(2);
    expect(badModel.stderr).toContain('loopchart: invalid config LOOPCHART_MODEL:\n  - model: "gpt-4o" is not one of openai:<model-id>');
  });
});
