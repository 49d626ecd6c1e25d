/** ANSI colours for stderr output, or plain text when colour is off. */
export interface Palette {
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const style = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const plain = (text: string) => text;

export function createPalette(enabled: boolean): Palette {
  return enabled
    ? { dim: style('2'), red: style('31'), green: style('32'), yellow: style('33'), cyan: style('36') }
    : { dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
}

/**
 * Whether to colour output written to a stream: only on a terminal, never with
 * `--no-color`, and never when `NO_COLOR` is set to a non-empty value
 * (https://no-color.org).
 */
export function colorAllowed({ isTTY, noColorFlag, env }: { isTTY: boolean; noColorFlag: boolean; env: NodeJS.ProcessEnv }): boolean {
  return isTTY && !noColorFlag && !env.NO_COLOR;
}
