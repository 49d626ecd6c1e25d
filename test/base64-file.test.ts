import { describe, expect, it } from 'vitest';
import { withBase64Data } from '../src/model-call/base64-file.js';

describe('a generated file with its bytes as base64', () => {
  it('turns raw bytes into base64 text and keeps everything else of the file', () => {
    expect(withBase64Data({ type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array([137, 80, 78, 71]) }, providerMetadata: { google: { a: 1 } } })).toEqual({
      type: 'reasoning-file',
      mediaType: 'image/png',
      data: { type: 'data', data: 'iVBORw==' },
      providerMetadata: { google: { a: 1 } },
    });
  });

  it('returns a file already in base64, or given by URL, as it is', () => {
    const base64 = { type: 'file' as const, mediaType: 'text/plain', data: { type: 'data' as const, data: 'aGk=' } };
    const byUrl = { type: 'file' as const, mediaType: 'image/png', data: { type: 'url' as const, url: new URL('https://files.example.invalid/cat.png') } };
    expect(withBase64Data(base64)).toBe(base64);
    expect(withBase64Data(byUrl)).toBe(byUrl);
  });
});
