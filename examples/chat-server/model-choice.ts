import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModel } from 'ai';
import { demoModel } from './demo-model.js';

export type ModelFactory = (sessionId: string) => LanguageModel;

/** The model a `--model` argument names: `demo` (default, offline) or `openai:<model id>` (needs OPENAI_API_KEY). */
export function modelFactoryFor(spec = 'demo'): ModelFactory {
  if (spec === 'demo') return () => demoModel();
  const [provider, ...rest] = spec.split(':');
  const modelId = rest.join(':');
  if (provider !== 'openai' || modelId === '') throw new Error(`--model takes "demo" or "openai:<model id>", got "${spec}".`);
  if (!process.env.OPENAI_API_KEY) throw new Error(`--model ${spec} needs OPENAI_API_KEY in the environment.`);
  const openai = createOpenAI();
  return () => openai.chat(modelId);
}
