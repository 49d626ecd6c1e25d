import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolTagParser, type ToolTagEvent } from '../../src/text-tools/tool-tag-parser.js';
import { formatToolCall } from '../../src/text-tools/tool-protocol-syntax.js';

/** Feeds the chunks in order, flushes, and joins adjacent text events (their split depends on the chunking). */
function parse(chunks: readonly string[]): ToolTagEvent[] {
  const parser = new ToolTagParser();
  const events = [...chunks.flatMap((chunk) => parser.feed(chunk)), ...parser.flush()];
  return joinText(events);
}

function joinText(events: readonly ToolTagEvent[]): ToolTagEvent[] {
  const joined: ToolTagEvent[] = [];
  for (const event of events) {
    const last = joined[joined.length - 1];
    if (event.type === 'text' && last?.type === 'text') joined[joined.length - 1] = { type: 'text', text: last.text + event.text };
    else joined.push(event);
  }
  return joined;
}

function splitAt(text: string, cuts: readonly number[]): string[] {
  const positions = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let start = 0;
  for (const position of [...positions, text.length]) {
    chunks.push(text.slice(start, position));
    start = position;
  }
  return chunks;
}

const readCall = formatToolCall('read', '{"path":"src/a.ts"}');
const answerWithTwoCalls = `Let me look.\n${readCall}\n${formatToolCall('ls', '{"path": "src"}')}\nDone.`;

describe('ToolTagParser', () => {
  it('turns a complete block into a tool call, keeping the text around it but not the whitespace right after the block', () => {
    expect(parse([`Reading it. ${readCall} Then I answer.`])).toEqual([
      { type: 'text', text: 'Reading it. ' },
      { type: 'tool-call', toolCall: { toolName: 'read', input: '{"path":"src/a.ts"}', argumentsStatus: 'valid' } },
      { type: 'text', text: 'Then I answer.' },
    ]);
  });

  it('returns every block of one answer, in order', () => {
    const calls = parse([answerWithTwoCalls]).flatMap((event) => (event.type === 'tool-call' ? [event.toolCall.toolName] : []));
    expect(calls).toEqual(['read', 'ls']);
  });

  it('gives the same calls and text when the answer is split at any single position', () => {
    const whole = parse([answerWithTwoCalls]);
    for (let cut = 0; cut <= answerWithTwoCalls.length; cut++) {
      expect(parse([answerWithTwoCalls.slice(0, cut), answerWithTwoCalls.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    }
    expect(parse([...answerWithTwoCalls])).toEqual(whole);
  });

  it('gives the same calls and text for any chunking of any mix of text and blocks (property)', () => {
    const nearMissAlphabet = fc.constantFrom(...'<>/"{}\\ \nabuse_toolnamrgsx:,'.split(''));
    const fragment = fc.oneof(
      fc.string({ unit: nearMissAlphabet, maxLength: 12 }),
      fc.constantFrom('a < b', '<use_toolbox>', '<use_tool', '</use_tool>', '<arguments>', '</arguments>', '<use_tool>'),
      fc
        .dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.integer(), fc.constant('</arguments></use_tool>')), { maxKeys: 3 })
        .map((input) => formatToolCall('read', JSON.stringify(input))),
      fc.constantFrom(
        '<use_tool><tool_name>x</tool_name><arguments>{a: 1,}</arguments></use_tool>',
        '<use_tool>\n  <tool_name> spaced </tool_name>\n  <arguments>\n{"a": [1, 2]}\n  </arguments>\n</use_tool>',
        '<use_tool><tool_name>x</tool_name><arguments>{}</arguments> no closing tag',
        '<use_tool><tool_name>x</tool_name><arguments>{"a": "unterminated</arguments></use_tool>',
        '<use_tool><tool_name>noargs</tool_name></use_tool>',
        '<use_tool><tool_name>abandoned</tool_name> ',
      ),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 20 }), (fragments, cuts) => {
        const answer = fragments.join('');
        expect(parse(splitAt(answer, cuts))).toEqual(parse([answer]));
      }),
      { numRuns: 500 },
    );
  });

  it('passes text without a complete opening tag through unchanged, whatever the chunking (property)', () => {
    const nearMissAlphabet = fc.constantFrom(...'<>/ use_tol'.split(''));
    fc.assert(
      fc.property(
        fc.string({ unit: nearMissAlphabet, maxLength: 40 }).filter((text) => !text.includes('<use_tool>')),
        fc.array(fc.nat(), { maxLength: 10 }),
        (text, cuts) => {
          expect(parse(splitAt(text, cuts))).toEqual(text === '' ? [] : [{ type: 'text', text }]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never lets part of a tag reach the text, while still streaming the text before it', () => {
    const parser = new ToolTagParser();
    const texts: string[] = [];
    for (const char of `Hi ${readCall} bye`) {
      for (const event of parser.feed(char)) if (event.type === 'text') texts.push(event.text);
    }
    for (const event of parser.flush()) if (event.type === 'text') texts.push(event.text);
    expect(texts.join('')).toBe('Hi bye');
    expect(texts.some((text) => text.includes('<'))).toBe(false);
  });

  it('holds back "<" only until the next chunk shows it is not a tag ("a < b")', () => {
    const parser = new ToolTagParser();
    expect(parser.feed('a <')).toEqual([{ type: 'text', text: 'a ' }]);
    expect(parser.feed(' b')).toEqual([{ type: 'text', text: '< b' }]);
    expect(parser.flush()).toEqual([]);
  });

  it('releases a longer tag that merely starts like the opening tag ("<use_toolbox>")', () => {
    const parser = new ToolTagParser();
    expect(parser.feed('see <use_tool')).toEqual([{ type: 'text', text: 'see ' }]);
    expect(parser.feed('box> here')).toEqual([{ type: 'text', text: '<use_toolbox> here' }]);
  });

  it('releases "<use_tool" left at the very end of the stream', () => {
    const parser = new ToolTagParser();
    expect(parser.feed('The end <use_tool')).toEqual([{ type: 'text', text: 'The end ' }]);
    expect(parser.flush()).toEqual([{ type: 'text', text: '<use_tool' }]);
  });

  it('releases a block that was cut off before its arguments ended, as the text it was', () => {
    const cutOff = '<use_tool><tool_name>bash</tool_name><arguments>{"command": "rm -rf bu';
    expect(parse([`Running: ${cutOff}`])).toEqual([{ type: 'text', text: `Running: ${cutOff}` }]);
  });

  it('repairs malformed JSON arguments that jsonrepair can fix', () => {
    expect(parse(["<use_tool><tool_name>read</tool_name><arguments>{path: 'a.ts',}</arguments></use_tool>"])).toEqual([
      { type: 'tool-call', toolCall: { toolName: 'read', input: '{"path": "a.ts"}', argumentsStatus: 'repaired' } },
    ]);
  });

  it('passes arguments that cannot be repaired on as the raw text, marked invalid', () => {
    expect(parse(['<use_tool><tool_name>read</tool_name><arguments> {{{ </arguments></use_tool>'])).toEqual([
      { type: 'tool-call', toolCall: { toolName: 'read', input: '{{{', argumentsStatus: 'invalid' } },
    ]);
  });

  it('marks arguments that repair only into a non-object (plain words) invalid', () => {
    const [event] = parse(['<use_tool><tool_name>read</tool_name><arguments>the README</arguments></use_tool>']);
    expect(event).toEqual({ type: 'tool-call', toolCall: { toolName: 'read', input: 'the README', argumentsStatus: 'invalid' } });
  });

  it('keeps closing tags that appear inside JSON strings as part of the arguments', () => {
    const content = 'Call with <use_tool>…</arguments></use_tool> like \\"this\\"';
    const [event] = parse([`<use_tool><tool_name>write</tool_name><arguments>{"content": "${content}"}</arguments></use_tool>`]);
    expect(event).toMatchObject({ type: 'tool-call', toolCall: { toolName: 'write', argumentsStatus: 'valid' } });
    expect(JSON.parse((event as Extract<ToolTagEvent, { type: 'tool-call' }>).toolCall.input)).toEqual({
      content: 'Call with <use_tool>…</arguments></use_tool> like "this"',
    });
  });

  it('recovers a block whose unterminated JSON string swallowed the closing tags', () => {
    expect(parse(['<use_tool><tool_name>read</tool_name><arguments>{"path": "a.ts}</arguments></use_tool> after'])).toEqual([
      { type: 'tool-call', toolCall: { toolName: 'read', input: '{"path": "a.ts"}', argumentsStatus: 'repaired' } },
      { type: 'text', text: 'after' },
    ]);
  });

  it('reads a block without arguments as {} and one without </use_tool> as ending at </arguments>', () => {
    expect(parse(['<use_tool><tool_name>now</tool_name></use_tool>'])).toEqual([
      { type: 'tool-call', toolCall: { toolName: 'now', input: '{}', argumentsStatus: 'valid' } },
    ]);
    expect(parse(['<use_tool><tool_name>now</tool_name><arguments>{}</arguments>\nAnd then?'])).toEqual([
      { type: 'tool-call', toolCall: { toolName: 'now', input: '{}', argumentsStatus: 'valid' } },
      { type: 'text', text: 'And then?' },
    ]);
  });

  it('starts the block again at a second <use_tool> written before the first one had arguments: the abandoned start is text, the call is the complete block', () => {
    const abandoned = '<use_tool><tool_name>delete</tool_name>\n';
    const whole = `Let me instead read it. ${abandoned}${readCall} Done.`;
    const expected: ToolTagEvent[] = [
      { type: 'text', text: `Let me instead read it. ${abandoned}` },
      { type: 'tool-call', toolCall: { toolName: 'read', input: '{"path":"src/a.ts"}', argumentsStatus: 'valid' } },
      { type: 'text', text: 'Done.' },
    ];
    expect(parse([whole])).toEqual(expected);
    for (let cut = 0; cut <= whole.length; cut++) expect(parse([whole.slice(0, cut), whole.slice(cut)]), `cut at ${cut}`).toEqual(expected);
    expect(parse(['I write <use_tool> blocks to call a tool: ', readCall])).toEqual([
      { type: 'text', text: 'I write <use_tool> blocks to call a tool: ' },
      { type: 'tool-call', toolCall: { toolName: 'read', input: '{"path":"src/a.ts"}', argumentsStatus: 'valid' } },
    ]);
  });

  it('reads a long block streamed in 4-character chunks whole: every character of its arguments, and the text after it', () => {
    // A model writing a 400 KB file through a write tool, in the small deltas models stream, with whitespace before the
    // closing tag. What this costs is in the benchmark (npm run bench -- "text tool"), not here: no test measures time.
    const content = 'x'.repeat(400_000);
    const block = `<use_tool><tool_name>write</tool_name><arguments>{"content": "${content}"}</arguments>${' '.repeat(50_000)}</use_tool> Done.`;
    const parser = new ToolTagParser();
    const events: ToolTagEvent[] = [];
    for (let fed = 0; fed < block.length; fed += 4) events.push(...parser.feed(block.slice(fed, fed + 4)));
    events.push(...parser.flush());
    expect(joinText(events)).toEqual([
      { type: 'tool-call', toolCall: { toolName: 'write', input: `{"content": "${content}"}`, argumentsStatus: 'valid' } },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('ignores whitespace and newlines between the tags of a block', () => {
    const spaced = '<use_tool>\n  <tool_name> read </tool_name>\n  <arguments>\n    {"path": "a"}\n  </arguments>\n</use_tool>';
    expect(parse([spaced])).toEqual([{ type: 'tool-call', toolCall: { toolName: 'read', input: '{"path": "a"}', argumentsStatus: 'valid' } }]);
  });
});
