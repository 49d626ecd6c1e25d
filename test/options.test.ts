import { describe, expect, it } from 'vitest';
import { toolSearch } from 'ai';
import { z } from 'zod';
import { AgentOptionsError, createAgent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';

function optionError(options: unknown): AgentOptionsError {
  try {
    createAgent(options as Parameters<typeof createAgent>[0]);
  } catch (error) {
    if (error instanceof AgentOptionsError) return error;
    throw error;
  }
  throw new Error('createAgent accepted invalid options');
}

describe('createAgent options', () => {
  it.each([
    [{ maxSteps: 0 }, 'maxSteps'],
    [{ maxSteps: 2.5 }, 'maxSteps'],
    [{ toolExecution: 'chaotic' }, 'toolExecution'],
    [{ doomLoop: { threshold: 1 } }, 'doomLoop.threshold'],
    [{ tools: { read: () => 'not a tool' } }, 'tools.read'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages.0'],
    [{ instructions: 42 }, 'instructions'],
    [{ maxStep: 3 }, '(options)'],
    [{ timeout: { tools: { bash: 100 } } }, 'timeout.tools.bash'],
    [{ timeout: -1 }, 'timeout'],
  ])('rejects %j naming the option %s', (bad, path) => {
    const error = optionError({ model: mockModel([]), ...bad });
    expect(error.issues.map((issue) => issue.path)).toContain(path);
    expect(error.message).toContain(`- ${path}:`);
  });

  it('refuses a tool with deferLoading, which ToolLoopAgent hides from the model until toolSearch() finds it, naming the tool and what to do', () => {
    const weather = { description: 'Weather', inputSchema: z.object({ city: z.string() }), deferLoading: true, execute: async () => 'rain' };
    const error = optionError({ model: mockModel([]), tools: { weather } });
    expect(error.issues).toEqual([{ path: 'tools.weather', message: expect.stringContaining('deferLoading: true is not supported') }]);
    expect(error.message).toContain("prepareStep's activeTools");
  });

  it('refuses a tool with a contextSchema, whose context a loopchart agent never gives, naming the tool and what to do', () => {
    const lookup = { description: 'Looks up', inputSchema: z.object({}), contextSchema: z.object({ userId: z.string() }), execute: async () => 'found' };
    const error = optionError({ model: mockModel([]), tools: { lookup } });
    expect(error.issues).toEqual([{ path: 'tools.lookup', message: expect.stringContaining('contextSchema is not supported') }]);
    expect(error.message).toContain('through its closure');
  });

  it('refuses toolSearch(), whose search only an AI SDK generation binds, naming the tool', () => {
    const error = optionError({ model: mockModel([]), tools: { search: toolSearch() } });
    expect(error.issues).toEqual([{ path: 'tools.search', message: expect.stringContaining('toolSearch() is not supported') }]);
  });

  it('rejects the old option name timeouts, saying it is now timeout with <tool>Ms per-tool limits', () => {
    const error = optionError({ model: mockModel([]), timeouts: { totalMs: 10 } });
    expect(error.issues).toEqual([{ path: 'timeouts', message: expect.stringContaining('renamed to timeout') }]);
  });

  it('rejects a missing or wrong model with a message that says what a model is', () => {
    const error = optionError({});
    expect(error.issues[0]).toEqual({ path: 'model', message: expect.stringMatching(/LanguageModel/) });
    expect(optionError({ model: { doStream: 1 } }).issues[0]!.path).toBe('model');
  });

  it('rejects a string model id (an AI SDK gateway id) at once, saying what to pass instead, rather than failing every call with an auth error', () => {
    const error = optionError({ model: 'openai/gpt-4o' });
    expect(error.issues[0]).toEqual({ path: 'model', message: expect.stringContaining('a model id string ("openai/gpt-4o") is not supported') });
  });

  it('accepts a minimal agent', () => {
    expect(() => createAgent({ model: mockModel([]) })).not.toThrow();
  });
});
