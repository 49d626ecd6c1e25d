import { describe, expect, it } from 'vitest';
import { chooseCliSandbox, type SandboxRequest } from '../../src/cli/sandbox-choice.js';
import type { FoundSandbox } from '../../src/tools/find-sandbox.js';
import { UsageError } from '../../src/cli/usage-error.js';

const bubblewrap = async (): Promise<FoundSandbox> => ({ kind: 'bubblewrap', path: '/usr/bin/bwrap', disableUserNamespaces: true });
const nothing = async (): Promise<FoundSandbox> => ({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed' });
const request = (overrides: Partial<SandboxRequest> = {}): SandboxRequest => ({ noSandbox: false, allowNetwork: false, realModel: true, bash: true, ...overrides });

describe('chooseCliSandbox', () => {
  it('runs bash in bubblewrap without network, and MCP servers with it', async () => {
    await expect(chooseCliSandbox(request(), bubblewrap)).resolves.toEqual({
      bash: { mode: 'bubblewrap', network: false },
      mcp: { mode: 'bubblewrap', network: true },
      report: { kind: 'bubblewrap', network: false },
    });
  });

  it('gives bash the network when allowed', async () => {
    const chosen = await chooseCliSandbox(request({ allowNetwork: true }), bubblewrap);
    expect(chosen.bash).toEqual({ mode: 'bubblewrap', network: true });
    expect(chosen.report).toEqual({ kind: 'bubblewrap', network: true });
  });

  it('refuses bash for a real model when there is no sandbox', async () => {
    const refusal = chooseCliSandbox(request(), nothing);
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(refusal).rejects.toThrow('bash needs a sandbox when a real model runs it, and there is none here: bubblewrap (bwrap) is not installed. Install it, or give --no-sandbox');
  });

  it('runs unconfined with a notice when no sandbox is there and no real model runs bash', async () => {
    for (const overrides of [{ realModel: false }, { bash: false }]) {
      const chosen = await chooseCliSandbox(request(overrides), nothing);
      expect(chosen).toMatchObject({ bash: 'none', mcp: 'none', report: { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' } });
      expect(chosen.notice).toMatch(/^sandbox: none available \(bubblewrap \(bwrap\) is not installed\)/);
    }
  });

  it('--no-sandbox turns it off without looking for one, and says so', async () => {
    const chosen = await chooseCliSandbox(request({ noSandbox: true }), () => Promise.reject(new Error('not asked')));
    expect(chosen).toMatchObject({ bash: 'none', mcp: 'none', report: { kind: 'none', reason: '--no-sandbox' } });
    expect(chosen.notice).toMatch(/^sandbox: off \(--no-sandbox\)/);
  });
});
