import { describe, expect, it } from 'vitest';
import { createPalette } from '../../src/cli/palette.js';
import { createReporter } from '../../src/cli/reporter.js';
import { noIndicator } from '../../src/cli/spinner.js';
import { terminalSafe } from '../../src/cli/terminal-text.js';

function capture() {
  let text = '';
  return { sink: { write: (chunk: string) => (text += chunk) }, get text() { return text; } };
}

describe('terminalSafe', () => {
  it('turns escape sequences, carriage returns and other controls into visible text, keeping newlines and tabs', () => {
    expect(terminalSafe('line\u001b[2K\r✓ write (1 ms) forged')).toBe('line\\x1b[2K\\x0d✓ write (1 ms) forged');
    expect(terminalSafe('\u001b]0;pwned\u0007title')).toBe('\\x1b]0;pwned\\x07title');
    expect(terminalSafe('\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\')).not.toContain('\u001b');
    expect(terminalSafe('a\u009bb\u007fc\bd')).toBe('a\\x9bb\\x7fc\\x08d');
    expect(terminalSafe('tabs\tand\nnewlines stay, ünïcode too')).toBe('tabs\tand\nnewlines stay, ünïcode too');
  });

  it('shows bidirectional overrides and isolates instead of letting them reorder a line (Trojan Source)', () => {
    expect(terminalSafe('✓ read \u202egnp.txt')).toBe('✓ read \\u202egnp.txt');
    expect(terminalSafe('a\u2066b\u2069c\u202ad')).toBe('a\\u2066b\\u2069c\\u202ad');
    expect(terminalSafe('עברית and العربية stay')).toBe('עברית and العربية stay');
  });
});

describe('the human reporter prints model and file text safely', () => {
  it('neither model text on stdout nor a tool preview on stderr can erase or forge a line', () => {
    const stdout = capture();
    const stderr = capture();
    const reporter = createReporter('human', { stdout: stdout.sink, stdoutIsTerminal: true, stderr: stderr.sink, palette: createPalette(false), indicator: noIndicator });
    reporter.event({ type: 'text-delta', runId: 'r', step: 1, id: 't', text: 'hi\u001b[2K\r', attempt: 1 });
    reporter.event({ type: 'tool-call', runId: 'r', step: 1, toolCallId: 'c', toolName: 'read', input: { path: 'a' } });
    reporter.event({ type: 'tool-result', runId: 'r', step: 1, toolCallId: 'c', toolName: 'read', output: 'x\u001b[1A\u001b[2K✓ bash (1 ms) rm -rf done', isError: false, durationMs: 1 });
    expect(stdout.text).not.toContain('\u001b');
    expect(stdout.text).not.toContain('\r');
    expect(stderr.text).not.toContain('\u001b');
    expect(stderr.text).toContain('\\x1b[1A');
  });

  it('--json and --events output stays byte-exact JSON', () => {
    const stdout = capture();
    const reporter = createReporter('events', { stdout: stdout.sink, stderr: capture().sink, palette: createPalette(false), indicator: noIndicator });
    const event = { type: 'text-delta' as const, runId: 'r', step: 1, id: 't', text: 'hi\u001b[2K', attempt: 1 };
    reporter.event(event);
    expect(JSON.parse(stdout.text)).toEqual(event);
  });
});
