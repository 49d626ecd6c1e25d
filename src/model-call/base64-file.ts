import { convertUint8ArrayToBase64 } from '@ai-sdk/provider-utils';
import type { GeneratedStepFile } from '../core/step.js';

/** A generated file whose bytes, when it has them, are base64 text. */
export type Base64StepFile = GeneratedStepFile & { data: { type: 'data'; data: string } | { type: 'url'; url: URL } };

/**
 * The file with its bytes as base64 text, as the AI SDK's history holds a generated file and as
 * JSON carries it (a journal, Redis, a browser); a file given by URL, or already as base64, is
 * returned as it is. Pure.
 *
 * @example
 * withBase64Data({ type: 'file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array([137, 80]) } }).data // { type: 'data', data: 'iVA=' }
 */
export function withBase64Data(file: GeneratedStepFile): Base64StepFile {
  const { data } = file;
  if (data.type === 'url' || typeof data.data === 'string') return file as Base64StepFile;
  return { ...file, data: { type: 'data', data: convertUint8ArrayToBase64(data.data) } };
}
