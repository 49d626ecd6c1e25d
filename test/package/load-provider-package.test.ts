import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isMissingPackage, loadProviderPackage } from '../../src/cli/load-provider-package.js';
import { UsageError } from '../../src/cli/usage-error.js';

/** The error Node itself throws for `import(specifier)` of a package that is not installed. */
function nodeImportError(specifier: string): Error {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `try { await import(${JSON.stringify(specifier)}) } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`], { encoding: 'utf8' });
  const { code, message } = JSON.parse(child.stdout) as { code: string; message: string };
  return Object.assign(new Error(message), { code });
}

describe('loadProviderPackage', () => {
  it('returns the installed package', async () => {
    const { createOpenAI } = await loadProviderPackage('@ai-sdk/openai', 'openai:gpt-4o-mini');
    expect(createOpenAI).toBeTypeOf('function');
  });

  it('names the package to install, and the --model value, when the package is not installed', async () => {
    const missing = nodeImportError('@ai-sdk/anthropic-not-installed');
    const load = loadProviderPackage('@ai-sdk/anthropic', 'anthropic:claude-sonnet-4-5', async () => {
      throw Object.assign(new Error(missing.message.replace('@ai-sdk/anthropic-not-installed', '@ai-sdk/anthropic')), { code: (missing as NodeJS.ErrnoException).code });
    });
    await expect(load).rejects.toThrow(UsageError);
    await expect(load).rejects.toThrow('--model anthropic:claude-sonnet-4-5 needs the package @ai-sdk/anthropic, which is not installed: npm install @ai-sdk/anthropic');
  });

  it('rethrows a package that fails for another reason unchanged, such as a missing dependency of the provider itself', async () => {
    const nested = nodeImportError('@ai-sdk/provider-utils-not-installed');
    await expect(loadProviderPackage('@ai-sdk/google', 'google:gemini-2.5-flash', async () => Promise.reject(nested))).rejects.toBe(nested);
    const broken = new SyntaxError('Unexpected token');
    await expect(loadProviderPackage('@ai-sdk/google', 'google:gemini-2.5-flash', async () => Promise.reject(broken))).rejects.toBe(broken);
  });
});

describe('isMissingPackage', () => {
  it("recognises Node's error for the package itself, and nothing else", () => {
    expect(isMissingPackage(nodeImportError('@ai-sdk/not-installed'), '@ai-sdk/not-installed')).toBe(true);
    expect(isMissingPackage(nodeImportError('@ai-sdk/not-installed'), '@ai-sdk/not')).toBe(false);
    expect(isMissingPackage(new Error("Cannot find package '@ai-sdk/openai'"), '@ai-sdk/openai')).toBe(false);
    expect(isMissingPackage('ERR_MODULE_NOT_FOUND', '@ai-sdk/openai')).toBe(false);
  });
});
