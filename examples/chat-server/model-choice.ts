import type { LanguageModel } from 'ai';
import { demoModel } from './demo-model.js';

export type ModelFactory = (sessionId: string) => LanguageModel;

/** The provider package `openai:<id>` needs: an optional dependency, imported only when it is chosen. */
type OpenAIPackage = Pick<typeof import('@ai-sdk/openai'), 'createOpenAI'>;

const importOpenAI = (): Promise<OpenAIPackage> => import('@ai-sdk/openai');

/**
 * The model a `--model` argument names: `demo` (default, offline, needs no
 * provider package) or `openai:<model id>` (needs OPENAI_API_KEY and the
 * `@ai-sdk/openai` package, which is imported only then).
 *
 * @example
 * const createModel = await modelFactoryFor(process.env.CHAT_MODEL ?? 'demo');
 * const model = createModel('session-1');
 */
export async function modelFactoryFor(spec = 'demo', loadOpenAI: () => Promise<OpenAIPackage> = importOpenAI): Promise<ModelFactory> {
  if (spec === 'demo') return () => demoModel();
  const [provider, ...rest] = spec.split(':');
  const modelId = rest.join(':');
  if (provider !== 'openai' || modelId === '') throw new Error(`--model takes "demo" or "openai:<model id>", got "${spec}".`);
  if (!process.env.OPENAI_API_KEY) throw new Error(`--model ${spec} needs OPENAI_API_KEY in the environment.`);
  const { createOpenAI } = await loadOpenAI().catch((error: unknown) => {
    if (isMissing(error, '@ai-sdk/openai')) throw new Error(`--model ${spec} needs the package @ai-sdk/openai, which is not installed: npm install @ai-sdk/openai`);
    throw error;
  });
  const openai = createOpenAI();
  return () => openai.chat(modelId);
}

/** Node's error for an import of a package that is not installed (not one of its own imports that failed). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}
