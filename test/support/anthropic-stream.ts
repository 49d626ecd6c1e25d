/**
 * One Anthropic Messages API turn as its server streams it (`POST /v1/messages`
 * with `stream: true`): `message_start`, a content block per thinking, text and
 * `tool_use` part with their deltas, `message_delta` with the stop reason and
 * usage, `message_stop`. Served by `startOpenAIServer(responses, { path: '/v1/messages' })`.
 *
 * @example
 * const server = await startOpenAIServer([anthropicStreamResponse({ thinking: ['Let me read it.'], toolUses: [{ id: 'toolu_1', name: 'read', input: { path: 'a.txt' } }] })], { path: '/v1/messages' });
 */
import type { StreamHttpResponse } from './openai-sse-server.js';

export interface AnthropicTurn {
  /** `thinking_delta`s of one thinking block, signed. */
  thinking?: string[];
  /** `text_delta`s of one text block. */
  text?: string[];
  toolUses?: Array<{ id: string; name: string; input: object }>;
  /** Default `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  model?: string;
}

export function anthropicStreamResponse(turn: AnthropicTurn): StreamHttpResponse {
  const chunks: object[] = [
    {
      type: 'message_start',
      message: { id: 'msg_test', type: 'message', role: 'assistant', model: turn.model ?? 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
    },
  ];
  let index = 0;
  if (turn.thinking?.length) {
    chunks.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const thinking of turn.thinking) chunks.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
    chunks.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig-test' } });
    chunks.push({ type: 'content_block_stop', index });
    index++;
  }
  if (turn.text?.length) {
    chunks.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const text of turn.text) chunks.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    chunks.push({ type: 'content_block_stop', index });
    index++;
  }
  for (const use of turn.toolUses ?? []) {
    const json = JSON.stringify(use.input);
    const half = Math.ceil(json.length / 2);
    chunks.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
    chunks.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
    chunks.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
    chunks.push({ type: 'content_block_stop', index });
    index++;
  }
  const stopReason = turn.stopReason ?? (turn.toolUses?.length ? 'tool_use' : 'end_turn');
  chunks.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 7 } });
  chunks.push({ type: 'message_stop' });
  return { kind: 'stream', chunks, end: 'end' };
}
