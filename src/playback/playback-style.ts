/** The playback page's own styles, after the report's (whose statechart and panels it reuses). */
export const PLAYBACK_STYLE = `
main.pb-main { max-width: none; padding: 16px 20px 40px; }
.pb-summary { margin-bottom: 12px; }
.pb-layout { display: grid; grid-template-columns: minmax(0, 3fr) minmax(340px, 2fr); gap: 16px; align-items: start; }
.pb-side section { margin-bottom: 12px; }
.controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.controls button { font: inherit; min-width: 38px; padding: 4px 10px; border: 1px solid var(--line); border-radius: 8px; background: #fff; cursor: pointer; }
.controls button:hover { border-color: var(--accent); }
.controls button[aria-pressed="true"] { background: var(--accent); color: #fff; }
#position { margin-left: 8px; color: var(--muted); }
.follow { margin-left: auto; font-size: 12.5px; color: var(--muted); }
.pb-timeline { position: relative; padding-top: 14px; }
.pb-timeline input[type=range] { width: 100%; margin: 0; }
.marks { position: absolute; left: 8px; right: 8px; top: 0; height: 14px; }
.marks span { position: absolute; top: 4px; width: 1px; height: 9px; background: #94a3b8; }
.marks span.run { top: 0; width: 2px; height: 14px; background: var(--ink); }
.marks span.compaction { background: #14b8a6; width: 2px; }
.marks span.retry { background: #f59e0b; width: 2px; }
.marks span.approval { background: #a855f7; width: 2px; }
.now { margin: 10px 0; font-size: 13px; display: flex; gap: 6px 16px; flex-wrap: wrap; }
.now .event { font-family: var(--mono); font-weight: 650; }
svg.statechart .state.leaf.active > rect { fill: #fde68a; stroke: #b45309; stroke-width: 3.2; }
svg.statechart .state.leaf.active .name { fill: #78350f; font-weight: 800; }
svg.statechart .state.compound.active > rect { fill: #fef3c7; stroke: #b45309; stroke-width: 3; }
svg.statechart .state.compound.active-parent > rect { stroke: #d97706; stroke-width: 2; fill: #fffbeb; }
svg.statechart .transition-group.active-edge path { stroke: #d97706; stroke-width: 3.2; }
ol.messages { margin: 0; padding-left: 28px; max-height: 46vh; overflow: auto; font-size: 12.5px; }
ol.messages li { margin: 0 0 6px; }
ol.messages .role { font-weight: 700; margin-right: 6px; }
ol.messages .role-user .role { color: var(--accent); }
ol.messages .role-assistant .role { color: var(--ok); }
ol.messages .role-tool .role { color: #7c3aed; }
ol.messages .role-system .role { color: var(--warn); }
ol.messages pre { margin: 2px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; background: #f8fafc; border: 1px solid #eef2f7; border-radius: 6px; padding: 4px 6px; max-height: 12em; overflow: auto; }
form.fork label { display: block; margin: 6px 0 2px; font-weight: 600; font-size: 12.5px; }
form.fork textarea, form.fork input { width: 100%; font: 12.5px var(--mono); padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; }
form.fork button { margin-top: 8px; font: inherit; font-weight: 650; padding: 6px 14px; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
form.fork button:disabled { opacity: 0.5; cursor: default; }
#fork-status.problem { color: var(--bad); }
@media (max-width: 1100px) { .pb-layout { grid-template-columns: 1fr; } }
`;
