/**
 * Every option that takes secrets goes through one check (`secretList`): a secret
 * that is not set (`process.env.OPENAI_API_KEY` → undefined) or empty is left
 * out, anything else that is no string is an options error naming the option.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, fileStore, SecretsOptionError } from 'loopchart';
import {
  agentInspectorOptions,
  createBrowserInspector,
  createSkyInspector,
  createWebSocketInspector,
  startInspectorRelay,
  type InspectorRelay,
} from 'loopchart/inspect';
import { scriptedModel } from 'loopchart/test';
import { bashTool, builtinTools } from 'loopchart/tools';
import { inspectionBatches } from '../src/inspect/inspection-batch.js';
import { secretList } from '../src/secrets/secret-list.js';

const KEY = 'sk-secret-options-4f1c9a2e77';

describe('secretList', () => {
  it('keeps the strings and leaves out undefined and empty secrets', () => {
    expect(secretList([undefined, KEY, '', 'sk-other-key-123'], 'opt')).toEqual([KEY, 'sk-other-key-123']);
    expect(secretList(undefined, 'opt')).toEqual([]);
    expect(secretList([], 'opt')).toEqual([]);
  });

  it('refuses a secret that is no string, naming the option and the index but never the value', () => {
    for (const bad of [42, null, true, { key: KEY }, [KEY]]) {
      const refused = () => secretList([KEY, bad], 'fileStore options.redact');
      expect(refused).toThrow(SecretsOptionError);
      expect(refused).toThrow(/^fileStore options\.redact\[1\]: expected a secret \(a string\), or undefined for one that is not set; got (a number|null|a boolean|an object|an array)$/);
      try {
        refused();
      } catch (error) {
        expect((error as SecretsOptionError).option).toBe('fileStore options.redact[1]');
        expect(String(error)).not.toContain(KEY);
      }
    }
  });

  it('refuses a list that is no array', () => {
    expect(() => secretList(KEY, 'pgStore options.redact')).toThrow('pgStore options.redact: expected an array of secrets (strings), got a string');
    expect(() => secretList(null, 'pgStore options.redact')).toThrow('pgStore options.redact: expected an array of secrets (strings), got null');
  });
});

describe('every option that takes secrets', () => {
  const unusedAdapter = { send: () => undefined, start: () => undefined, stop: () => undefined };
  const seams: Array<[string, (secrets: unknown) => unknown]> = [
    ['createWebSocketInspector options.secrets', (secrets) => createWebSocketInspector({ url: 'ws://127.0.0.1:1/', autoStart: false, secrets: secrets as string[] })],
    ['createBrowserInspector options.secrets', (secrets) => createBrowserInspector({ autoStart: false, secrets: secrets as string[] })],
    ['agentInspectorOptions options.secrets', (secrets) => agentInspectorOptions({ secrets: secrets as string[] })],
    ['inspectionBatches options.secrets', (secrets) => inspectionBatches(unusedAdapter, { secrets: secrets as string[] })],
    ['bashTool options.redact', (redact) => bashTool({ cwd: os.tmpdir(), redact: redact as string[] })],
    ['builtinTools options.bash.redact', (redact) => builtinTools({ cwd: os.tmpdir(), tools: ['bash'], bash: { redact: redact as string[] } })],
  ];

  // Made with valid secrets, the Sky inspector connects to stately.ai: it is only refused here, before that.
  const refusing = [...seams, ['createSkyInspector options.secrets', (secrets: unknown) => createSkyInspector({ autoStart: false, secrets: secrets as string[] })] as const];

  it.each(refusing)('%s: refuses a secret that is no string, by name', (option, make) => {
    expect(() => make([KEY, 42])).toThrow(new SecretsOptionError(`${option}[1]`, 'expected a secret (a string), or undefined for one that is not set; got a number'));
    expect(() => make(KEY)).toThrow(`${option}: expected an array of secrets (strings), got a string`);
  });

  it.each(seams)('%s: takes a secret that is not set, or empty', (_option, make) => {
    expect(() => make([undefined, '', KEY])).not.toThrow();
  });
});

describe('a secret that is not set, where secrets are used', () => {
  let relay: InspectorRelay | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("the inspector page's Live, from Node example runs with OPENAI_API_KEY unset, and still redacts the secrets that are set", async () => {
    relay = await startInspectorRelay();
    const raw: string[] = [];
    const receiver = createWebSocketReceiver({ server: relay.webSocketUrl });
    // The run is over for the inspector once the session (the root actor) is idle again after running.
    let ran = false;
    const ended = new Promise<void>((resolve) =>
      receiver.subscribe((event: StatelyInspectionEvent) => {
        raw.push(JSON.stringify(event));
        if (event.type !== '@xstate.snapshot' || event.rootId !== event.sessionId) return;
        const live = ((event.snapshot as { value?: { holding?: { live?: unknown } } }).value?.holding)?.live;
        if (live === 'running') ran = true;
        else if (live === 'idle' && ran) resolve();
      }),
    );
    const unset: string | undefined = undefined;
    const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
    const agent = createAgent({ model: scriptedModel([{ text: `Your key is ${KEY}.` }]), inspect: inspector.inspect, secrets: [unset, '', KEY] });
    const result = await agent.run('What is my key?');
    expect(result.outcome).toBe('completed');
    await ended;
    inspector.stop();
    expect(raw.some((text) => text.includes(KEY))).toBe(false);
    expect(raw.some((text) => text.includes('[redacted]'))).toBe(true);
  });

  it("the agent's secrets keep the set ones out of the session file", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopchart-secret-options-'));
    dirs.push(dir);
    const agent = createAgent({ model: scriptedModel([{ text: `Your key is ${KEY}.` }]), store: fileStore(dir), sessionId: 's1', secrets: [undefined, '', KEY] });
    expect((await agent.run('What is my key?')).outcome).toBe('completed');
    const file = readFileSync(path.join(dir, 's1.jsonl'), 'utf8');
    expect(file).toContain('Your key is [redacted].');
    expect(file).not.toContain(KEY);
  });

  it('bash redacts the set secrets from its output', async () => {
    const bash = bashTool({ cwd: os.tmpdir(), sandbox: 'none', redact: [undefined, '', KEY] });
    const output = await bash.execute({ command: `echo ${KEY}` }, { toolCallId: 't1', messages: [], context: {} });
    expect(output).toContain('[redacted]');
    expect(output).not.toContain(KEY);
  });
});

