import { styleText } from 'node:util';

/** Colours for stderr output, or plain text when colour is off. */
export interface Palette {
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

type Format = Parameters<typeof styleText>[0];

/** Node's own `styleText`; whether to colour at all is decided once, by {@link colorAllowed}. */
const style = (format: Format) => (text: string) => styleText(format, text, { validateStream: false });
const plain = (text: string) => text;

export function createPalette(enabled: boolean): Palette {
  return enabled
    ? { dim: style('dim'), red: style('red'), green: style('green'), yellow: style('yellow'), cyan: style('cyan') }
    : { dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
}

/**
 * Whether to colour output written to a stream, in Node's order: never with `--no-color`; then
 * `FORCE_COLOR` decides when set (`0` or `false` off, anything else on, even into a pipe); then a
 * non-empty `NO_COLOR` turns it off (https://no-color.org); otherwise only on a terminal.
 */
export function colorAllowed({ isTTY, noColorFlag, env }: { isTTY: boolean; noColorFlag: boolean; env: NodeJS.ProcessEnv }): boolean {
  if (noColorFlag) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY && !env.NO_COLOR;
}
