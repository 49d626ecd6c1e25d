import { findSandbox, type FoundSandbox } from '../tools/find-sandbox.js';
import type { SandboxSetting } from '../tools/sandbox-settings.js';
import { UsageError } from './usage-error.js';

export interface SandboxRequest {
  /** `--no-sandbox`: run bash and the MCP servers unconfined, knowingly. */
  noSandbox: boolean;
  /** `--allow-network`, or the script's `allowNetwork`: bash may reach the network. */
  allowNetwork: boolean;
  /** The run's model is a real one (not a script's own turns): it may not run bash unconfined without `--no-sandbox`. */
  realModel: boolean;
  /** The run enables bash. */
  bash: boolean;
}

/** What `--json` says of the sandbox: the one used, or why there is none. */
export type SandboxReport = { kind: 'bubblewrap'; network: boolean } | { kind: 'none'; reason: string };

export interface CliSandbox {
  /** For `bashTool`. */
  bash: SandboxSetting;
  /** For the stdio MCP servers: they keep the network, which most need. */
  mcp: SandboxSetting;
  report: SandboxReport;
  /** Said once on stderr: the run has no sandbox. */
  notice?: string;
}

/**
 * The sandbox of a CLI run that has bash or MCP servers: bubblewrap when it
 * works here, else none, said once; `--no-sandbox` turns it off.
 *
 * @example
 * await chooseCliSandbox({ noSandbox: false, allowNetwork: false, realModel: true, bash: true })
 * // { bash: { mode: 'bubblewrap', network: false }, mcp: { mode: 'bubblewrap', network: true }, report: { kind: 'bubblewrap', network: false } }
 * @throws UsageError when a real model would run bash without a sandbox and `--no-sandbox` was not given.
 */
export async function chooseCliSandbox(request: SandboxRequest, find: () => Promise<FoundSandbox> = findSandbox): Promise<CliSandbox> {
  if (request.noSandbox) {
    return { bash: 'none', mcp: 'none', report: { kind: 'none', reason: '--no-sandbox' }, notice: 'sandbox: off (--no-sandbox): bash and stdio MCP servers run with your rights, unconfined' };
  }
  const found = await find();
  if (found.kind === 'bubblewrap') {
    return {
      bash: { mode: 'bubblewrap', network: request.allowNetwork },
      mcp: { mode: 'bubblewrap', network: true },
      report: { kind: 'bubblewrap', network: request.allowNetwork },
    };
  }
  if (request.bash && request.realModel) {
    throw new UsageError(`bash needs a sandbox when a real model runs it, and there is none here: ${found.reason}. Install it, or give --no-sandbox to let bash run unconfined`);
  }
  return {
    bash: 'none',
    mcp: 'none',
    report: { kind: 'none', reason: found.reason },
    notice: `sandbox: none available (${found.reason}): bash and stdio MCP servers run with your rights, unconfined`,
  };
}
