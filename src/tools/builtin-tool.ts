import type { Tool } from 'ai';

/**
 * The type of every built-in tool: an AI SDK tool taking `INPUT` and
 * returning text, whose `execute` is always present.
 */
export type BuiltinTool<INPUT> = Tool<INPUT, string> & { execute: NonNullable<Tool<INPUT, string>['execute']> };
