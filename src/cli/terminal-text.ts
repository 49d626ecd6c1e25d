// The CLI's name for it: the function lives below every layer that prints (the MCP adapter prints servers' logs too).
export { terminalSafe } from '../text/terminal-safe.js';
