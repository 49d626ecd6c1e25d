import type * as AnthropicPackage from '@ai-sdk/anthropic';
import type * as GooglePackage from '@ai-sdk/google';
import type * as OpenAIPackage from '@ai-sdk/openai';
import type * as OpenAICompatiblePackage from '@ai-sdk/openai-compatible';
import { UsageError } from './usage-error.js';

/**
 * The provider packages `--model` creates its model with, by package name.
 * They are optional peer dependencies of loopchart: an app installs the ones
 * it uses, and the CLI loads one only when `--model` names its provider, so
 * the scripted model runs without any of them.
 */
export interface ProviderPackages {
  '@ai-sdk/openai': typeof OpenAIPackage;
  '@ai-sdk/anthropic': typeof AnthropicPackage;
  '@ai-sdk/google': typeof GooglePackage;
  '@ai-sdk/openai-compatible': typeof OpenAICompatiblePackage;
}

export type ProviderPackageName = keyof ProviderPackages;

/**
 * Imports a provider package when `--model` needs it.
 *
 * @param name the package, e.g. `@ai-sdk/anthropic`
 * @param model the `--model` value it is for, quoted in the error
 * @param importModule how to import it (tests pass their own)
 * @throws UsageError naming the package to install when it is not installed;
 *   any other failure to load it is rethrown unchanged.
 *
 * @example
 * const { createAnthropic } = await loadProviderPackage('@ai-sdk/anthropic', 'anthropic:claude-sonnet-4-5');
 * // without the package: UsageError "--model anthropic:claude-sonnet-4-5 needs the package @ai-sdk/anthropic, which is not installed: npm install @ai-sdk/anthropic"
 */
export async function loadProviderPackage<Name extends ProviderPackageName>(
  name: Name,
  model: string,
  importModule: (specifier: string) => Promise<unknown> = (specifier) => import(specifier),
): Promise<ProviderPackages[Name]> {
  try {
    return (await importModule(name)) as ProviderPackages[Name];
  } catch (error) {
    if (isMissingPackage(error, name)) {
      throw new UsageError(`--model ${model} needs the package ${name}, which is not installed: npm install ${name}`);
    }
    throw error;
  }
}

/**
 * Whether `error` is Node's "Cannot find package" for `name` itself — not for
 * a package that `name` imports, which is a broken install, not a missing peer.
 */
export function isMissingPackage(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && error.message.includes(`'${name}'`);
}
