import { beforeAll, describe, expect, it } from 'vitest';
import { runOptionNames } from '../../src/cli/args.js';
import { sessionMachine } from '../../src/session/session-machine.js';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { toMermaid } from '../../src/machine/mermaid.js';
import { buildCli, runCli } from './support/cli-process.js';

beforeAll(() => buildCli(), 60_000);

describe.concurrent('loopchart commands', () => {
  it('chart prints the session statechart with the run chart it invokes as Mermaid, generated from the machines', async () => {
    const { code, stdout, stderr } = await runCli(['chart']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(toMermaid(sessionMachine, { invoked: { runChart: agentMachine } }));
    expect(stdout).toMatch(/^stateDiagram-v2\n/);
    expect(stdout).toContain('holding_live_awaitingApproval');
    expect(stdout).toContain('runChart__running_llm_streaming');
  });

  it('chart rejects arguments', async () => {
    const { code, stderr } = await runCli(['chart', 'extra']);
    expect(code).toBe(2);
    expect(stderr).toContain('chart takes no arguments');
    expect(stderr).toContain('Run loopchart chart --help for usage.');
  });

  it.each([[['run', '--help']], [['run', '-h']], [['help', 'run']], [['run', 'whatever.yaml', '--json', '--help']]])(
    '%j prints the run help: usage, every option and the exit codes',
    async (args) => {
      const { code, stdout } = await runCli(args);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: loopchart run <script.yaml \| "prompt"> \[options\]/);
      for (const option of runOptionNames) expect(stdout).toContain(`--${option}`);
      expect(stdout).toMatch(/130 {2}aborted/);
      expect(stdout).toMatch(/ {2}9 {2}the script's expect block failed/);
    },
  );

  it.each([[['chart', '--help']], [['help', 'chart']]])('%j prints the chart help', async (args) => {
    const { code, stdout } = await runCli(args);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: loopchart chart\n/);
    expect(stdout).toContain('Mermaid');
  });

  it.each([[['--help']], [['-h']], [['help']]])('%j prints the overview of the commands', async (args) => {
    const { code, stdout } = await runCli(args);
    expect(code).toBe(0);
    expect(stdout).toContain('loopchart run <script.yaml | "prompt"> [options]');
    expect(stdout).toContain('loopchart chart');
    expect(stdout).toMatch(/130 {2}aborted/);
  });

  it('runs the bundled demo with the scripted model, offline, and meets its expect block', async () => {
    const { code, stdout, stderr } = await runCli(['run', 'examples/demo.yaml']);
    expect(code).toBe(0);
    expect(stdout).toContain('Done. README.md now says "This project is the best."');
    expect(stderr).toMatch(/^completed · 4 steps · 4 tool calls/m);
  });
});
