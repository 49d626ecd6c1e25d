/** The report's stylesheet, inlined into the page: system fonts only, nothing fetched. */
export const REPORT_STYLE = `
:root {
  --ink: #0f172a; --muted: #64748b; --faint: #94a3b8; --line: #e2e8f0; --paper: #ffffff; --page: #f6f7fb;
  --accent: #2563eb; --accent-soft: #dbeafe; --accent-ink: #1e3a8a;
  --ok: #15803d; --ok-soft: #dcfce7; --bad: #b91c1c; --bad-soft: #fee2e2; --warn: #b45309; --warn-soft: #fef3c7;
  --final: #16a34a;
  --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif;
  --mono: ui-monospace, "SFMono-Regular", "Cascadia Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { background: var(--page); }
body { margin: 0; font: 14px/1.5 var(--sans); color: var(--ink); }
main { max-width: 1240px; margin: 0 auto; padding: 28px 24px 64px; }
h1 { font-size: 22px; margin: 0; letter-spacing: -0.01em; }
h2 { font-size: 16px; margin: 0 0 4px; letter-spacing: -0.005em; }
h3 { font-size: 14px; margin: 0; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
.muted { color: var(--muted); }
.small { font-size: 11.5px; }
section, .summary { background: var(--paper); border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px; margin: 0 0 18px; box-shadow: 0 1px 2px rgb(15 23 42 / 4%); }
.section-intro { color: var(--muted); margin: 0 0 12px; max-width: 80ch; }

.title-row { display: flex; align-items: center; gap: 14px; flex-wrap: wrap; }
.outcome { font-weight: 650; font-size: 13px; padding: 3px 12px; border-radius: 999px; background: var(--warn-soft); color: var(--warn); border: 1px solid currentColor; }
.outcome-completed { background: var(--ok-soft); color: var(--ok); }
.outcome-failed, .outcome-denied, .outcome-content-filter { background: var(--bad-soft); color: var(--bad); }
.run-error { margin: 14px 0 0; padding: 10px 14px; border-radius: 8px; background: var(--bad-soft); color: #7f1d1d; border: 1px solid #fecaca; display: flex; gap: 10px; flex-wrap: wrap; }
.error-kind { font-weight: 650; }
.error-message { white-space: pre-wrap; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 10px 20px; margin: 16px 0 0; }
.facts div { min-width: 0; }
.facts dt { color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: 0.04em; }
.facts dd { margin: 1px 0 0; font-weight: 550; overflow-wrap: anywhere; }

nav.contents { display: flex; gap: 6px 16px; flex-wrap: wrap; margin: 0 0 18px; padding: 0 4px; font-size: 13px; }
nav.contents a { color: var(--accent); text-decoration: none; }
nav.contents a:hover { text-decoration: underline; }

.legend { display: flex; gap: 8px 18px; flex-wrap: wrap; align-items: center; font-size: 12.5px; color: var(--muted); margin: 0 0 10px; }
.legend .swatch { display: inline-block; width: 22px; height: 12px; border-radius: 4px; vertical-align: -1px; margin-right: 6px; border: 1.5px solid var(--faint); background: #fff; }
.legend .swatch.visited { background: var(--accent-soft); border: 2px solid var(--accent); }
.legend .swatch.line { height: 0; border: 0; border-top: 3px solid var(--accent); border-radius: 0; vertical-align: 3px; }
.legend .swatch.line.final { border-top-color: var(--final); }
.legend .swatch.line.untaken { border-top: 2px solid #cbd5e1; }
.legend label { margin-left: auto; color: var(--ink); cursor: pointer; user-select: none; }
.toggle { accent-color: var(--accent); }
section.wide { width: max-content; min-width: 100%; max-width: calc(100vw - 32px); position: relative; left: 50%; transform: translateX(-50%); }
section.wide > .section-intro, section.wide > .legend { max-width: 1200px; }
.diagram-scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 10px; background: #fbfcfe; margin-top: 8px; }
.diagram-scroll svg { display: block; margin: 0 auto; }
#fit-diagram:checked ~ .diagram-scroll svg { width: 100%; height: auto; }
#fade-untaken:checked ~ .diagram-scroll .unvisited { opacity: 0.12; }

svg.statechart { font-family: var(--sans); }
svg.statechart .state > rect { fill: #fff; stroke: #cbd5e1; stroke-width: 1.2; }
svg.statechart .state .name { font-size: 13px; font-weight: 600; fill: #334155; }
svg.statechart .state .note { font-size: 10.5px; fill: var(--faint); font-style: italic; }
svg.statechart .state.transient > rect { stroke-dasharray: 4 3; }
svg.statechart .state.compound > rect { fill: #f8fafc; stroke: #cbd5e1; }
svg.statechart .state.compound.visited > rect { fill: #f5f8ff; stroke: #93b4f5; stroke-width: 1.6; }
svg.statechart .state.leaf.visited > rect { fill: var(--accent-soft); stroke: var(--accent); stroke-width: 2.2; }
svg.statechart .state.visited .name { fill: var(--accent-ink); font-weight: 700; }
svg.statechart .state.visited .note { fill: #3b5bab; }
svg.statechart .alias rect { fill: #fff; stroke: #cbd5e1; stroke-dasharray: 3 3; }
svg.statechart .alias text { font-size: 11.5px; font-weight: 600; fill: #7b8798; }
svg.statechart .alias.visited rect { fill: var(--accent-soft); stroke: var(--accent); stroke-width: 1.6; }
svg.statechart .alias.visited text { fill: var(--accent-ink); }
svg.statechart .alias.final rect { fill: var(--ok-soft); stroke: var(--final); }
svg.statechart .alias.final text { fill: #166534; }
svg.statechart .badge rect { fill: var(--accent); stroke: #fff; stroke-width: 1.5; }
svg.statechart .badge text { fill: #fff; font-size: 10.5px; font-weight: 700; font-style: normal; }
svg.statechart .transition-group path, svg.statechart .initial path { fill: none; stroke: #cbd5e1; stroke-width: 1.2; }
svg.statechart .transition-group.visited path, svg.statechart .initial.visited path { stroke: var(--accent); stroke-width: 2.4; }
svg.statechart .transition-group.final path { stroke: var(--final); stroke-width: 2.8; }
svg.statechart .initial circle { fill: #94a3b8; }
svg.statechart .initial.visited circle { fill: var(--accent); }
svg.statechart #lc-arrow path { fill: #cbd5e1; }
svg.statechart #lc-arrow-visited path { fill: var(--accent); }
svg.statechart #lc-arrow-final path { fill: var(--final); }
svg.statechart .transition-label rect { fill: #fbfcfe; fill-opacity: 0.92; }
svg.statechart .transition-label.visited rect { fill: #fff; stroke: #bfd3fb; stroke-width: 1; }
svg.statechart .transition-label text { font-size: 11px; fill: #7b8798; }
svg.statechart .transition-label text.visited { fill: var(--accent-ink); font-weight: 650; }
svg.statechart .transition-label text.final { fill: #166534; }
svg.statechart .state:hover > rect, svg.statechart .transition-group:hover path { filter: drop-shadow(0 1px 3px rgb(37 99 235 / 35%)); }

.timeline { display: grid; gap: 3px; font-size: 12px; position: relative; }
.lane { display: grid; grid-template-columns: 190px 1fr; align-items: center; gap: 10px; min-height: 18px; }
.lane-label { font-family: var(--mono); font-size: 11.5px; color: #334155; text-align: right; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.track { position: relative; height: 16px; background: #f8fafc; border-radius: 3px; }
.axis .track { background: none; height: 18px; border-bottom: 1px solid var(--line); }
.gridlines { position: absolute; top: 21px; bottom: 0; left: 200px; right: 0; pointer-events: none; }
.gridlines span { position: absolute; top: 0; bottom: 0; border-left: 1px dashed rgb(148 163 184 / 45%); }
.tick { position: absolute; bottom: 2px; transform: translateX(-50%); color: var(--muted); font-size: 11px; white-space: nowrap; }
.tick:first-child { transform: none; }
.bar { position: absolute; z-index: 1; top: 2px; bottom: 2px; min-width: 3px; border-radius: 3px; background: #94a3b8; cursor: default; }
.bar:hover { outline: 2px solid var(--ink); outline-offset: 1px; z-index: 1; }
.bar-llm { background: #3b82f6; }
.bar + .bar { box-shadow: inset 2px 0 0 rgb(255 255 255 / 85%); }
.bar-tool { background: #22c55e; }
.bar-tool-error { background: #ef4444; }
.bar-retry { background: #f59e0b; }
.bar-approval { background: #a855f7; }
.bar-compaction { background: #14b8a6; }
.bar-transient { background: #64748b; }
.bar-other { background: #94a3b8; }

.step { border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; margin: 0 0 12px; }
.step > header { display: flex; gap: 8px 16px; align-items: baseline; flex-wrap: wrap; margin: 0 0 8px; }
.facts-inline { display: flex; gap: 6px 14px; flex-wrap: wrap; font-size: 12.5px; }
.fact-name { color: var(--muted); margin-right: 5px; }
.fact.warn { color: var(--warn); font-weight: 600; }
.finish-stop, .finish-tool-calls { color: var(--ok); }
.finish-error, .finish-length, .finish-content-filter, .finish-none { color: var(--bad); }
.step-text { white-space: pre-wrap; overflow-wrap: anywhere; background: #f8fafc; border-left: 3px solid var(--accent); padding: 8px 12px; border-radius: 0 6px 6px 0; max-height: 24em; overflow: auto; }
.step-warnings { margin: 0 0 8px; padding: 6px 12px 6px 28px; background: var(--warn-soft); color: var(--warn); border-radius: 6px; font-size: 13px; }
.step-reasoning { white-space: pre-wrap; overflow-wrap: anywhere; color: var(--faint); font-style: italic; border-left: 3px solid var(--line); padding: 4px 12px; margin-bottom: 6px; max-height: 16em; overflow: auto; }
.step-text.empty { color: var(--faint); font-style: italic; border-left-color: var(--line); }
table { border-collapse: collapse; width: 100%; margin: 10px 0 0; font-size: 13px; }
th { text-align: left; font-weight: 600; color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: 0.04em; padding: 6px 8px; border-bottom: 1px solid var(--line); }
td { padding: 7px 8px; border-bottom: 1px solid #f1f5f9; vertical-align: top; overflow-wrap: anywhere; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.tool-calls td:nth-child(2), .tool-calls td:nth-child(5) { width: 36%; }
pre.value { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16em; overflow: auto; background: #f8fafc; border: 1px solid #eef2f7; border-radius: 6px; padding: 6px 8px; }
.status { display: inline-block; font-size: 11.5px; font-weight: 650; padding: 1px 8px; border-radius: 999px; }
.status-ok { background: var(--ok-soft); color: var(--ok); }
.status-error { background: var(--bad-soft); color: var(--bad); }
.status-pending { background: var(--warn-soft); color: var(--warn); }
.small-sections { display: grid; grid-template-columns: 1fr; gap: 0; }
details > summary { cursor: pointer; font-weight: 600; }
footer { color: var(--faint); font-size: 12px; text-align: center; margin-top: 24px; }
@media print { .diagram-scroll { overflow: visible; } section.wide { transform: none; left: 0; } }
`;
