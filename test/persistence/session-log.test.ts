import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { decodeLog, encodeLine } from '../../src/persistence/jsonl.js';
import { replaySession } from '../../src/persistence/session-replay.js';
import { SessionFormatError, sessionHeader, type CheckpointRecord, type SessionRecord } from '../../src/persistence/session-store.js';

const user = (content: string): ModelMessage => ({ role: 'user', content });
const checkpoint = (id: number, messageCount: number): CheckpointRecord => ({
  type: 'checkpoint',
  id,
  at: '2026-01-01T00:00:00.000Z',
  state: 'running.llm.calling',
  step: id,
  messageCount,
  snapshot: { value: { running: { llm: 'calling' } }, context: {} },
});

describe('session log lines', () => {
  const header = encodeLine(sessionHeader('s'));

  it('skips a torn last line with a warning', () => {
    const text = `${header}${encodeLine({ type: 'message', index: 0, message: user('a') })}{"type":"message","ind`;
    const log = decodeLog(text, 's.jsonl');
    expect(log.records).toHaveLength(1);
    expect(log.warnings).toEqual([expect.stringMatching(/torn last line \(line 3/)]);
  });

  it('refuses a corrupt line that is not the last', () => {
    const text = `${header}{broken\n${encodeLine({ type: 'message', index: 0, message: user('a') })}`;
    expect(() => decodeLog(text, 's.jsonl')).toThrow(new SessionFormatError('s.jsonl: line 2 is not valid JSON'));
  });

  it('refuses another format version with an error that names both versions', () => {
    const text = encodeLine({ ...sessionHeader('s'), version: 99 });
    expect(() => decodeLog(text, 's.jsonl')).toThrow(/format version 99 is not supported by this loopchart \(it reads versions 1 and 2, and writes version 2\)/);
  });

  it.each([
    ['a number', '42', /line 3: not a session record \(an object with a type\), but 42/],
    ['null', 'null', /line 3: not a session record .*but null/],
    ['a record of a type it does not know', '{"type":"bogus"}', /line 3: record type "bogus" is not one this loopchart reads/],
    ['a message without an index', '{"type":"message","message":{"role":"user","content":"x"}}', /line 3: a message record this loopchart cannot read: index: Invalid input: expected number, received undefined/],
    ['a message whose index is text', '{"type":"message","index":"1","message":{"role":"user","content":"x"}}', /line 3: a message record this loopchart cannot read: index: .*received string/],
    ['a message that is not a message', '{"type":"message","index":1,"message":42}', /line 3: a message record this loopchart cannot read: message: expected a model message/],
    ['a checkpoint without a snapshot', '{"type":"checkpoint","id":1,"at":"x","state":"idle","step":0,"messageCount":1}', /line 3: a checkpoint record this loopchart cannot read: snapshot: /],
    ['a checkpoint with a negative message count', JSON.stringify({ ...checkpoint(1, 1), messageCount: -1 }), /line 3: a checkpoint record this loopchart cannot read: messageCount: Too small/],
    ['a timeline point of the wrong shape', '{"type":"timeline","runId":"r","at":0,"points":[[0,"x"]]}', /line 3: a timeline record this loopchart cannot read: points\.0: /],
    ['a trace without steps', '{"type":"trace","trace":{"runId":"r"}}', /line 3: a trace record this loopchart cannot read: trace\.steps: /],
    // openSessionRecord read these as tool calls and failed far from the line (TypeError: Cannot read properties of null).
    ['a trace whose tool call is null', '{"type":"trace","trace":{"runId":"r","steps":[{"toolCalls":[null]}]}}', /line 3: a trace record this loopchart cannot read: trace\.steps\.0\.toolCalls\.0: /],
    ['a trace whose tool call has no id', '{"type":"trace","trace":{"runId":"r","steps":[{"toolCalls":[{"toolName":"read"}]}]}}', /line 3: a trace record this loopchart cannot read: trace\.steps\.0\.toolCalls\.0\.toolCallId: /],
    [
      'a model call whose tool call is not one',
      '{"type":"model-call","runId":"r","step":1,"attempt":1,"startedAt":0,"request":{"messageCount":1,"tools":[],"settings":{}},"response":{"text":"","toolCalls":[42]}}',
      /line 3: a model-call record this loopchart cannot read: response\.toolCalls\.0: /,
    ],
    ['a second header', header.trim(), /line 3: record type "header" is not one this loopchart reads/],
  ])('refuses a line that is JSON but not a record it reads (%s), naming the file and the line', (_name, line, message) => {
    const text = `${header}${encodeLine({ type: 'message', index: 0, message: user('a') })}${line}\n${encodeLine(checkpoint(1, 1))}`;
    expect(() => decodeLog(text, 's.jsonl')).toThrow(SessionFormatError);
    expect(() => decodeLog(text, 's.jsonl')).toThrow(message);
    expect(() => decodeLog(text, 's.jsonl')).toThrow(/^s\.jsonl: line 3: /);
  });

  it('reads every record a run writes, of every type', () => {
    const text = `${header}${encodeLine({ type: 'message', index: 0, message: user('a') })}${encodeLine({ type: 'timeline', runId: 'r', at: 0, points: [[0, 'x', 'idle', 'running.preparing', 0]] })}${encodeLine({ ...checkpoint(1, 1), snapshot: { value: 'idle', context: {} } })}`;
    expect(decodeLog(text, 's.jsonl').records.map((record) => record.type)).toEqual(['message', 'timeline', 'checkpoint']);
  });

  it('refuses a file that is not a session', () => {
    expect(() => decodeLog('{"hello":1}\n', 'x.jsonl')).toThrow(/not a loopchart session/);
  });
});

describe('replaySession', () => {
  it('rebuilds the history at the last checkpoint, dropping what an unfinished step wrote', () => {
    const records: SessionRecord[] = [
      { type: 'message', index: 0, message: user('a') },
      checkpoint(1, 1),
      { type: 'message', index: 1, message: user('b-partial') },
    ];
    const replayed = replaySession(records);
    expect(replayed.messages).toEqual([user('a')]);
    expect(replayed.last?.id).toBe(1);
  });

  it('lets a re-run step rewrite the messages it wrote before a crash', () => {
    const records: SessionRecord[] = [
      { type: 'message', index: 0, message: user('a') },
      checkpoint(1, 1),
      { type: 'message', index: 1, message: user('b-first-try') },
      { type: 'message', index: 2, message: user('c-first-try') },
      { type: 'message', index: 1, message: user('b') },
      checkpoint(2, 2),
    ];
    expect(replaySession(records).messages).toEqual([user('a'), user('b')]);
  });

  it('applies a history record (a compaction) and stops at a given checkpoint', () => {
    const records: SessionRecord[] = [
      { type: 'message', index: 0, message: user('a') },
      checkpoint(1, 1),
      { type: 'history', messages: [user('summary')] },
      { type: 'message', index: 1, message: user('b') },
      checkpoint(2, 2),
    ];
    expect(replaySession(records).messages).toEqual([user('summary'), user('b')]);
    expect(replaySession(records, 1).messages).toEqual([user('a')]);
    expect(() => replaySession(records, 7)).toThrow(/no checkpoint 7/);
  });

  it.each([
    ['duplicated', [{ type: 'message', index: 0, message: user('a') }, checkpoint(1, 1), { type: 'message', index: 0, message: user('a') }, checkpoint(1, 1)], 'session s: checkpoint 1 comes after checkpoint 1: checkpoint ids grow (records duplicated or out of order)'],
    ['reversed', [checkpoint(1, 1), { type: 'message', index: 0, message: user('a') }], 'session s: checkpoint 1 counts 1 messages but 0 were written (records missing or out of order)'],
    ['with a gap', [{ type: 'message', index: 0, message: user('a') }, { type: 'message', index: 2, message: user('c') }], 'session s: message 2 arrives while the history has 1 messages (records missing or out of order)'],
  ] as Array<[string, SessionRecord[], string]>)('refuses records %s as a SessionFormatError that names the session', (_name, records, message) => {
    expect(() => replaySession(records, undefined, 'session s')).toThrow(new SessionFormatError(message));
  });
});
