/** Every built-in tool factory refuses an option it does not know: a misspelt one would otherwise be ignored and its default used. */
import { describe, expect, it } from 'vitest';
import { bashTool, builtinTools, editTool, globTool, grepTool, lsTool, readTool, writeTool } from '../../src/tools/index.js';

describe('the built-in tool factories', () => {
  it.each([
    ['bashTool', () => bashTool({ cwd: '/tmp', timeout: 5_000 } as never), 'unknown option "timeout" (did you mean "timeoutMs"?)'],
    ['grepTool', () => grepTool({ cwd: '/tmp', respectGitIgnore: false } as never), 'unknown option "respectGitIgnore" (did you mean "respectGitignore"?)'],
    ['globTool', () => globTool({ cwd: '/tmp', maxResult: 5 } as never), 'unknown option "maxResult" (did you mean "maxResults"?)'],
    ['lsTool', () => lsTool({ cwd: '/tmp', limit: 5 } as never), 'unknown option "limit"'],
    ['readTool', () => readTool({ cwd: '/tmp', root: '/' } as never), 'unknown option "root"'],
    ['writeTool', () => writeTool({ cwd: '/tmp', mode: 0o600 } as never), 'unknown option "mode"'],
    ['editTool', () => editTool({ workspace: '/tmp' } as never), 'cwd: Invalid input: expected string, received undefined; unknown option "workspace"'],
    ['builtinTools', () => builtinTools({ cwd: '/tmp', respectGitIgnore: false } as never), 'unknown option "respectGitIgnore" (did you mean "respectGitignore"?)'],
  ])('%s', (factory, create, problem) => {
    expect(create).toThrow(`Invalid ${factory} options: ${problem}`);
  });

  it('builtinTools refuses an unknown bash option, by its path', () => {
    expect(() => builtinTools({ cwd: '/tmp', tools: ['bash'], bash: { timeout: 5_000 } } as never)).toThrow('Invalid builtinTools options: unknown option "timeout" in bash');
  });
});
