/**
 * The public functions that take an options object refuse an option they do not know, naming the
 * one meant when it is close: a misspelt option would otherwise be ignored and its default used.
 * (The built-in tools: test/tools/factory-options.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { advanceSession, agentTool, atMentions, fileStore, forkSession } from '../src/index.js';
import { boundedEventStreamFetch, keyGuardedFetch } from '../src/ai-sdk/index.js';
import { agentImplementations, agentMachine, toMermaid } from '../src/machine/index.js';
import { scriptedModel } from '../src/test/index.js';
import { textToolProtocol } from '../src/text-tools/index.js';

const model = scriptedModel([{ text: 'Hi.' }]);
const store = fileStore('/nonexistent/loopchart-options-test');

describe('options a public function does not know', () => {
  it.each([
    ['atMentions', () => atMentions({ cwd: '/tmp', maxEntries: 5 } as never), 'unknown option "maxEntries"'],
    ['fileStore', () => fileStore('/tmp/x', { fsynch: true } as never), 'unknown option "fsynch" (did you mean "fsync"?)'],
    ['agentTool', () => agentTool({ model }, { description: 'Helps.', maxdepth: 2 } as never), 'unknown option "maxdepth" (did you mean "maxDepth"?)'],
    ['scriptedModel', () => scriptedModel([], { chunk: 3 } as never), 'unknown option "chunk"'],
    ['textToolProtocol', () => textToolProtocol({ generateId: () => 'x' } as never), 'unknown option "generateId"'],
    ['boundedEventStreamFetch', () => boundedEventStreamFetch({ maxEventSize: 10 } as never), 'unknown option "maxEventSize"'],
    ['keyGuardedFetch', () => keyGuardedFetch({ allowInsecure: true } as never), 'unknown option "allowInsecure"'],
    ['toMermaid', () => toMermaid(agentMachine, { invokes: {} } as never), 'unknown option "invokes" (did you mean "invoked"?)'],
    // maxSteps is createAgent's, in the machine's input: given here it was ignored.
    ['agentImplementations', () => agentImplementations({ model, maxSteps: 5 } as never), 'unknown option "maxSteps"'],
  ])('%s refuses one when called', (name, call, problem) => {
    expect(call).toThrow(`Invalid ${name} options: ${problem}`);
  });

  it.each([
    ['forkSession', () => forkSession({ store, from: 's1', at: 1, sessionID: 'fork' } as never), 'unknown option "sessionID" (did you mean "sessionId"?)'],
    [
      'advanceSession',
      () => advanceSession({ store, sessionId: 's1', owner: 'w', agent: { model }, input: { type: 'resume' }, requestId: 'r', leaseTTLMs: 5_000 } as never),
      'unknown option "leaseTTLMs" (did you mean "leaseTtlMs"?)',
    ],
  ])('%s refuses one before it reads or writes anything', async (name, call, problem) => {
    await expect(call()).rejects.toThrow(`Invalid ${name} options: ${problem}`);
  });

  it('the type of a known one is still checked: an empty description of a sub-agent, a maxRedirects that is no count', () => {
    expect(() => agentTool({ model }, { description: '' })).toThrow('Invalid agentTool options: description: what the sub-agent does, for the calling model');
    expect(() => keyGuardedFetch({ maxRedirects: -1 })).toThrow(/^Invalid keyGuardedFetch options: maxRedirects: Too small/);
  });
});
