import { describe, expect, it } from 'vitest';
import { parseRunTrace, TraceFormatError } from '../../src/report/trace-schema.js';
import { toolLoopTrace } from './support/tool-loop-trace.js';

const problemsOf = (value: unknown): readonly string[] => {
  try {
    parseRunTrace(value);
  } catch (error) {
    if (error instanceof TraceFormatError) return error.problems;
    throw error;
  }
  throw new Error('expected a TraceFormatError');
};

describe('parseRunTrace', () => {
  it('accepts a trace as JSON round-trips it, and a RunResult that carries one', async () => {
    const trace = JSON.parse(JSON.stringify(await toolLoopTrace()));
    expect(parseRunTrace(trace)).toEqual(trace);
    expect(parseRunTrace({ outcome: 'completed', messages: [], text: '', trace })).toEqual(trace);
  });

  it('names what is not an object', () => {
    expect(problemsOf([1, 2])).toEqual(['expected a JSON object, got an array']);
    expect(problemsOf(null)).toEqual(['expected a JSON object, got null']);
    expect(problemsOf('trace')).toEqual(['expected a JSON object, got string']);
  });

  it('names each missing or mistyped field by its path', async () => {
    const trace = JSON.parse(JSON.stringify(await toolLoopTrace()));
    trace.steps[0].usage = 'lots';
    delete trace.states;
    trace.outcome = 'exploded';
    const problems = problemsOf(trace);
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^steps\.0\.usage: /), expect.stringMatching(/^states: /), expect.stringMatching(/^outcome: /)]),
    );
  });

  it("accepts a step's provider warnings, and names one that is not a warning", async () => {
    const trace = JSON.parse(JSON.stringify(await toolLoopTrace()));
    trace.steps[0].warnings = [{ type: 'unsupported', feature: 'responseFormat', details: 'no schema' }];
    expect(parseRunTrace(trace).steps[0]!.warnings).toEqual([{ type: 'unsupported', feature: 'responseFormat', details: 'no schema' }]);
    trace.steps[0].warnings = ['no schema'];
    expect(problemsOf(trace)).toEqual([expect.stringMatching(/^steps\.0\.warnings\.0: /)]);
  });

  it('says which version it reads', async () => {
    const trace = { ...(await toolLoopTrace()), version: 2 };
    expect(problemsOf(trace)).toEqual(['version: expected 1, the trace version this loopchart reads']);
  });

  it('says when a RunResult has no trace', () => {
    expect(problemsOf({ outcome: 'aborted', messages: [], text: '' })).toEqual(['this is a RunResult without a trace (the run ended before it started)']);
  });

  it('lists at most a few problems', () => {
    const problems = problemsOf({ version: 1 });
    expect(problems.length).toBeLessThanOrEqual(9);
    expect(problems.at(-1)).toMatch(/^… and \d+ more$/);
  });

  it('has a message that lists the problems', () => {
    expect(() => parseRunTrace({})).toThrow(/^not a loopchart run trace:\n {2}- /);
  });
});
