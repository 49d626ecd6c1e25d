/**
 * A session that has been through everything a step-through view shows: a retry, tool steps, a
 * compaction and an approval, recorded into a given store by a real agent on the scripted model.
 * For the time-travel tests (record, fork, script, the page).
 *
 * @example
 * const store = fileStore(dir);
 * const { sessionId, result } = await recordSession(store);
 * const view = await openSessionRecord(store, sessionId);
 */
import { tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { createAgent } from '../../src/agent.js';
import { scriptedModel } from '../../src/test/index.js';
import type { RunResult } from '../../src/core/result.js';
import type { SessionStore } from '../../src/persistence/session-store.js';

export interface RecordedSession {
  sessionId: string;
  result: RunResult;
  /** The tool call that waited for approval and was approved. */
  approvedCallId: string;
}

/** The prompt the recorded session's run started with. */
export const RECORDED_PROMPT = 'Measure the big file, then note the result.';

/** The final text of the recorded session's run. */
export const RECORDED_ANSWER = 'The file is 8000 characters long; noted.';

/**
 * Runs one prompt in `store` (session `sessionId`, new): the first call fails with a 500 and is
 * retried, the model calls `measure` (whose large output crosses the compaction threshold, so the
 * history is summarised before the next call), then `note`, which asks for approval and is
 * approved, and answers. Resolves once everything is written.
 */
export async function recordSession(store: SessionStore, sessionId = 'recorded-session'): Promise<RecordedSession> {
  const model = scriptedModel([
    { error: { status: 500, message: 'the server had a hiccup' } },
    { toolCalls: [{ id: 'call-measure', name: 'measure', input: { n: 8_000 } }], usage: { inputTokens: 7_500, outputTokens: 20 } },
    { toolCalls: [{ id: 'call-note', name: 'note', input: { text: '8000 characters' } }], usage: { inputTokens: 300, outputTokens: 10 } },
    { text: RECORDED_ANSWER, usage: { inputTokens: 320, outputTokens: 12 } },
  ]);
  const summariser = scriptedModel([{ text: '## Goal\nMeasure the big file.\n## Progress\nMeasured: 8000 characters.' }]);
  const agent = createAgent({
    model,
    sessionId,
    store,
    instructions: 'You measure files and note what you find.',
    // An earlier conversation, for the compaction to summarise.
    messages: Array.from({ length: 6 }, (_, index): ModelMessage =>
      index % 2 === 0 ? { role: 'user', content: `Earlier question ${index}: ${'q'.repeat(2_000)}` } : { role: 'assistant', content: `Earlier answer ${index}: ${'a'.repeat(2_000)}` },
    ),
    tools: {
      measure: tool({ description: 'Returns n characters', inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => 'x'.repeat(n) }),
      note: tool({ description: 'Notes a finding', inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => `noted: ${text}` }),
    },
    approval: (call) => (call.toolName === 'note' ? 'ask' : 'allow'),
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    compaction: { contextWindow: 10_000, reserveTokens: 1_000, keepRecentTokens: 500, protectToolOutputTokens: 100_000, model: summariser },
  });
  let approvedCallId = '';
  const subscription = agent.events$.subscribe((event) => {
    if (event.type !== 'approval-request') return;
    approvedCallId = event.toolCallId;
    agent.approve(event.toolCallId);
  });
  try {
    await agent.ready();
    const result = await agent.run(RECORDED_PROMPT);
    await agent.settled();
    return { sessionId, result, approvedCallId };
  } finally {
    subscription.unsubscribe();
    await agent.dispose();
  }
}
