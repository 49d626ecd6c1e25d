import { DefaultGeneratedFile, type GeneratedFile, type ProviderMetadata } from 'ai';
import type { GeneratedStepFile } from '../core/step.js';

/** A generated file as the AI SDK's step content and stream carry it (`TextStreamFilePart` and its reasoning twin). */
export interface GeneratedFilePart {
  type: 'file' | 'reasoning-file';
  file: GeneratedFile;
  providerMetadata?: ProviderMetadata;
}

/**
 * The AI SDK's content part for a file the model generated (the step's `files` are its `file`
 * parts), with the bytes the provider gave. A file given only by URL has none here: `streamText`
 * downloads it, loopchart does not (the history and the `file` event keep the URL), so it has no
 * part. Pure.
 *
 * @example
 * generatedFilePart({ type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } })?.file.base64 // 'iVBORw0KGgo='
 */
export function generatedFilePart(file: GeneratedStepFile): GeneratedFilePart | undefined {
  if (file.data.type !== 'data') return undefined;
  return {
    type: file.type,
    file: new DefaultGeneratedFile({ data: file.data.data, mediaType: file.mediaType }),
    ...(file.providerMetadata ? { providerMetadata: file.providerMetadata } : {}),
  };
}
