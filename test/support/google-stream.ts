/**
 * One Gemini API turn as `POST /v1beta/models/<id>:streamGenerateContent?alt=sse`
 * streams it: one `GenerateContentResponse` per event, thought parts
 * (`thought: true`) first, then text, then `functionCall` parts, the last
 * event with `finishReason` and `usageMetadata`. Served by
 * `startOpenAIServer(responses, { path: /:streamGenerateContent\?alt=sse$/ })`.
 *
 * @example
 * const response = googleStreamResponse({ thoughts: ['Reading first.'], functionCalls: [{ name: 'read', args: { path: 'a.txt' } }] });
 */
import type { StreamHttpResponse } from './openai-sse-server.js';

export interface GoogleTurn {
  thoughts?: string[];
  text?: string[];
  functionCalls?: Array<{ name: string; args: object }>;
  /** Default `STOP` (Gemini says STOP after function calls too). */
  finishReason?: 'STOP' | 'MAX_TOKENS' | 'SAFETY';
}

export function googleStreamResponse(turn: GoogleTurn): StreamHttpResponse {
  const event = (parts: object[], last = false) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: turn.finishReason ?? 'STOP' } : {}) }],
    ...(last ? { usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 6, totalTokenCount: 17, thoughtsTokenCount: turn.thoughts?.length ? 3 : undefined } } : {}),
    modelVersion: 'gemini-test',
  });
  const chunks: object[] = [];
  for (const text of turn.thoughts ?? []) chunks.push(event([{ text, thought: true }]));
  for (const text of turn.text ?? []) chunks.push(event([{ text }]));
  const calls = (turn.functionCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: call.args } }));
  chunks.push(event(calls, true));
  return { kind: 'stream', chunks, end: 'end' };
}
