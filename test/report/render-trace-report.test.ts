import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { machineGraph } from '../../src/machine/machine-graph.js';
import { renderTraceReport } from '../../src/report/index.js';
import type { RunTrace } from '../../src/core/run-trace.js';
import { toolLoopTrace } from './support/tool-loop-trace.js';

const graph = machineGraph(agentMachine);
const trace = await toolLoopTrace();
const hostileTrace = await toolLoopTrace({ hostile: true });

describe('renderTraceReport', () => {
  it('is one HTML document with its style inline and no script, and a policy that forbids fetching and scripts', () => {
    const html = renderTraceReport(trace, graph);
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html.trimEnd()).toMatch(/<\/html>$/);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\((?!#lc-arrow)/i);
    expect(html).not.toMatch(/\b(src|srcset|action|formaction|xlink:href)=/i);
    for (const href of html.match(/href="[^"]*"/g) ?? []) expect(href).toMatch(/^href="#[a-z-]+"$/);
  });

  it('references nothing over http or https, not even the SVG namespace', () => {
    expect(renderTraceReport(trace, graph)).not.toMatch(/https?:\/\//);
  });

  it('escapes hostile text from the model and the tools wherever it appears, so that the only URLs left are inert text', () => {
    const html = renderTraceReport(hostileTrace, graph);
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;');
    expect(html).toContain('https://evil.example/steal');
    // The trace's URLs are there as text (and in hover titles); nothing else refers to any URL.
    expect(html.replace(/https?:\/\/evil\.example[^\s"<&]*/g, '')).not.toMatch(/https?:\/\//);
    for (const [, attribute] of html.matchAll(/([\w:-]+)="[^"]*evil\.example[^"]*"/g)) expect(attribute).toMatch(/^(title|data-[\w-]+)$/);
    expect(html).not.toMatch(/<script|<img|<[^>]*\sonerror=/i);
  });

  it('escapes hostile state names, events, tool names, ids and errors too', () => {
    const evil = '"><script>alert(1)</script>';
    const forged: RunTrace = {
      ...trace,
      runId: evil,
      outcome: 'failed',
      error: { kind: 'unknown', message: evil },
      states: [...trace.states, { state: evil, enteredAt: 1, leftAt: 2 }],
      transitions: [...trace.transitions, { from: evil, to: 'idle', event: evil, guard: evil, at: 3 }],
      steps: trace.steps.map((step) => ({ ...step, toolCalls: step.toolCalls.map((call) => ({ ...call, toolName: evil, toolCallId: evil, input: { [evil]: evil } })) })),
      retries: trace.retries.map((retry) => ({ ...retry, error: { kind: 'server', message: evil } })),
      hooks: trace.hooks.map((hook) => ({ ...hook, ok: false, message: evil })),
    };
    const html = renderTraceReport(forged, graph);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('not in this statechart');
  });

  it('marks the visited states and taken transitions in the diagram, and leaves the others unmarked', () => {
    const html = renderTraceReport(trace, graph);
    expect(html).toMatch(/<g class="state leaf visited" data-state="running\.toolExec" data-visited="true" data-visits="2">/);
    expect(html).toMatch(/<g class="state leaf visited" data-state="running\.retrying" data-visited="true" data-visits="1">/);
    expect(html).toMatch(/<g class="state leaf unvisited" data-state="running\.awaitingApproval" data-visited="false" data-visits="0">/);
    expect(html).toMatch(/<g class="state compound visited" data-state="running\.llm" data-visited="true" data-visits="4">/);
    expect(html).toMatch(/<g class="transition-group visited" data-from="running\.deciding" data-to="running\.toolExec" data-visited="true" data-taken="2">/);
    expect(html).toMatch(/<text class="transition visited final" data-from="running\.deciding" data-to="idle" data-event="always" data-guard="isCompletedFinish" data-visited="true" data-taken="1"/);
    expect(html).toMatch(/<text class="transition unvisited" data-from="running\.deciding" data-to="idle" data-event="always" data-guard="isDoomLoopToStop" data-visited="false"/);
    expect(html).toContain('always [wantsTools] ×2');
  });

  it('shows the outcome, the steps with their tool calls, and the retries and hooks', () => {
    const html = renderTraceReport(trace, graph, { title: 'Oslo weather' });
    expect(html).toContain('<title>Oslo weather · completed</title>');
    expect(html).toContain('<span class="outcome outcome-completed" data-outcome="completed">completed</span>');
    for (const step of [1, 2, 3]) expect(html).toContain(`<article class="step" id="step-${step}" data-step="${step}">`);
    expect(html).toContain('Looking up Oslo and Bergen.');
    expect(html).toMatch(/<tr class="tool-call tool-ok" data-tool-call-id="[^"]+"><td class="tool-name"><code>lookup<\/code>/);
    expect(html).toMatch(/<tr class="tool-call tool-error" data-tool-call-id="[^"]+"><td class="tool-name"><code>explode<\/code>/);
    expect(html).toContain('exploded: nothing odd');
    expect(html).toContain('overloaded (HTTP 503)');
    expect(html).toContain('<code>beforeToolCall[0]</code>');
    expect(html).toContain('The context was not compacted.');
    expect(html).toMatch(/<div class="lane" data-state="running\.toolExec"><div class="lane-label" title="running\.toolExec">running\.toolExec<\/div><div class="track">(<span class="bar bar-tool" style="left:[\d.]+%;width:[\d.]+%" title="running\.toolExec · [^"]+"><\/span>){2}<\/div><\/div>/);
  });

  it("lists a step's provider warnings, escaped, above its text", () => {
    const details = 'JSON response format schema is only supported with <structuredOutputs>';
    const warned: RunTrace = { ...trace, steps: trace.steps.map((step, index) => (index === 0 ? { ...step, warnings: [{ type: 'unsupported', feature: 'responseFormat', details }] } : step)) };
    const html = renderTraceReport(warned, graph);
    expect(html).toContain(
      '<ul class="step-warnings" aria-label="provider warnings"><li data-warning-type="unsupported">The feature &quot;responseFormat&quot; is not supported. JSON response format schema is only supported with &lt;structuredOutputs&gt;</li></ul><div class="step-text">',
    );
    expect(html.match(/class="step-warnings"/g)).toHaveLength(1);
  });

  it('shows the error of a run that failed at the top', () => {
    const failed: RunTrace = { ...trace, outcome: 'failed', error: { kind: 'server', message: 'HTTP 500 from upstream', status: 500 } };
    const html = renderTraceReport(failed, graph);
    expect(html).toContain('<span class="outcome outcome-failed" data-outcome="failed">failed</span>');
    expect(html).toContain('<div class="run-error" role="alert"><span class="error-kind">server · HTTP 500</span><span class="error-message">HTTP 500 from upstream</span></div>');
  });

  it('renders a trace of a run without steps', () => {
    const empty: RunTrace = { ...trace, durationMs: 0, outcome: 'aborted', states: [{ state: 'idle', enteredAt: 0, leftAt: 0 }], transitions: [], steps: [], retries: [], hooks: [] };
    const html = renderTraceReport(empty, graph);
    expect(html).toContain('The run made no LLM call.');
    expect(html).toContain('No model call was retried.');
  });
});
