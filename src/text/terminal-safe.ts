/**
 * Text from the model or from files, made safe to print on a terminal: every
 * control character but newline and tab — ESC and so every ANSI/OSC sequence
 * (`\e[2K`, window titles, OSC 8 links), carriage return, backspace, bell, DEL
 * and the C1 controls — becomes a visible `\xHH`, so printed text can neither
 * erase nor forge the CLI's own lines. So do the bidirectional overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a line shows
 * ("Trojan Source"); they print as `\u202e`. Pure.
 *
 * @example
 * terminalSafe('ok\u001b[2K\r✓ fake') // 'ok\\x1b[2K\\x0d✓ fake'
 */
export function terminalSafe(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, visible) : text;
}

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ALL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, '0')}`;
}
