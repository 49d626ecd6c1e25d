import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTrustedWorkspace, settingsOnlyYouMaySet } from '../../src/cli/workspace-trust.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("what a workspace's own config may not set", () => {
  it('names where a key would be sent, which variable would be sent as a key, rules that let calls through, and trust itself', () => {
    expect(
      settingsOnlyYouMaySet({
        providers: { anthropic: { baseURL: 'https://x.example/v1', apiKeyEnv: 'GITHUB_TOKEN' }, openai: { apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' } },
        allow: ['bash'],
        permissionMode: 'allow-edits',
        trustedWorkspaces: ['/repo'],
      }),
    ).toEqual(['providers.anthropic.baseURL', 'providers.anthropic.apiKeyEnv', 'providers.openai.apiKeyEnv', 'allow', 'permissionMode', 'trustedWorkspaces']);
  });

  it("leaves the project its defaults and whatever only tightens what runs", () => {
    expect(settingsOnlyYouMaySet({ model: 'openai:gpt-4o-mini', tools: ['read', 'bash'], maxSteps: 40, deny: ['bash(git push *)'], permissionMode: 'deny', allow: [], agentsMd: true, appendSystem: 'Be brief.' })).toEqual([]);
  });
});

describe('a trusted workspace', () => {
  it('is the directory the user named, by its real path: a link to it is trusted too', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-trust-'));
    made.push(dir);
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    made.push(link);
    expect(isTrustedWorkspace(link, [dir])).toBe(true);
    expect(isTrustedWorkspace(dir, [link])).toBe(true);
    expect(isTrustedWorkspace(dir, [path.join(dir, 'other')])).toBe(false);
    expect(isTrustedWorkspace(dir, undefined)).toBe(false);
  });
});
