/**
 * The playback page's script, served as `/page.js` (the page's Content-Security-Policy allows no
 * inline script). It fetches the session's playback data, lights the active state on the
 * statechart, steps through the frames (buttons, the scrubber, ←/→, space, Home/End), shows the
 * step, the context and the messages at each frame, polls to follow a growing session, and sends
 * "run on from here". Everything from the session is put in the page as text, never as markup.
 * When the first frame is shown it sets `performance.mark('loopchart-ready')` and
 * `document.body.dataset.ready`.
 */
export const PLAYBACK_SCRIPT = String.raw`(() => {
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const sessionId = document.body.dataset.session;
const canRun = document.body.dataset.canRun === 'true';
const $ = (id) => document.getElementById(id);
const api = (path, extra) => path + '?token=' + encodeURIComponent(token) + '&session=' + encodeURIComponent(sessionId) + (extra || '');
const POLL_MS = 1000;
const PLAY_MS = 350;

let data = null;
let etag = null;
let current = -1;
let playTimer = null;
let pointSeq = 0;
const pointCache = new Map();

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
function json(value) {
  if (typeof value === 'string') return value;
  try { return JSON.stringify(value, null, 2); } catch (error) { return String(value); }
}
function tokens(usage) {
  if (!usage) return '–';
  const input = usage.inputTokens || 0;
  const output = usage.outputTokens || 0;
  return (input + output).toLocaleString('en-US') + ' (' + input.toLocaleString('en-US') + ' in · ' + output.toLocaleString('en-US') + ' out)';
}
function fact(parent, name, value) {
  const span = el('span', 'fact');
  span.append(el('span', 'fact-name', name), document.createTextNode(value));
  parent.append(span);
}

async function loadData() {
  const response = await fetch(api('/api/session'), etag ? { headers: { 'if-none-match': etag } } : {});
  if (response.status === 304) return false;
  const body = await response.json();
  if (!response.ok) {
    $('now').textContent = 'loopchart: ' + (body.error || response.statusText);
    return false;
  }
  etag = response.headers.get('etag');
  data = body;
  pointCache.clear();
  renderSession();
  return true;
}

function renderSession() {
  const lastRun = data.runs[data.runs.length - 1];
  const outcome = $('outcome');
  outcome.textContent = lastRun ? lastRun.outcome : 'no run';
  outcome.className = 'outcome outcome-' + (lastRun ? lastRun.outcome : 'other');
  outcome.dataset.outcome = lastRun ? lastRun.outcome : '';
  const forked = $('forked-from');
  if (data.forkedFrom) {
    forked.hidden = false;
    forked.textContent = 'Forked from ';
    const link = el('a', '', data.forkedFrom.sessionId);
    link.href = '/?token=' + encodeURIComponent(token) + '&session=' + encodeURIComponent(data.forkedFrom.sessionId);
    forked.append(link, document.createTextNode(' at checkpoint ' + data.forkedFrom.checkpoint + '.'));
  }
  const warnings = $('warnings');
  warnings.replaceChildren(...data.warnings.map((warning) => el('li', '', warning)));
  warnings.hidden = data.warnings.length === 0;
  const count = data.frames.length;
  const scrubber = $('scrubber');
  scrubber.max = String(Math.max(0, count - 1));
  const marks = $('marks');
  const spans = [];
  const at = (index) => (count > 1 ? (index / (count - 1)) * 100 : 0) + '%';
  data.frames.forEach((frame, index) => {
    let kind = '';
    if (frame.runStart) kind = 'run';
    else if (frame.stepStart) kind = 'step';
    if (frame.to.endsWith('.compacting') && frame.from !== frame.to) kind = 'compaction';
    if (frame.to.endsWith('.retrying')) kind = 'retry';
    if (frame.to.endsWith('.awaitingApproval')) kind = 'approval';
    if (!kind) return;
    const span = el('span', kind);
    span.style.left = at(index);
    span.title = kind + ' · event ' + (index + 1);
    spans.push(span);
  });
  marks.replaceChildren(...spans);
}

function light(frame) {
  const svg = document.querySelector('svg.statechart');
  for (const node of svg.querySelectorAll('.active, .active-parent, .active-edge')) node.classList.remove('active', 'active-parent', 'active-edge');
  const parts = frame.to.split('.');
  parts.forEach((_, index) => {
    const id = parts.slice(0, index + 1).join('.');
    const node = svg.querySelector('g.state[data-state="' + CSS.escape(id) + '"]');
    if (node) node.classList.add(index === parts.length - 1 ? 'active' : 'active-parent');
  });
  const from = frame.from.split('.');
  for (let length = from.length; length > 0; length--) {
    const edge = svg.querySelector('g.transition-group[data-from="' + CSS.escape(from.slice(0, length).join('.')) + '"][data-to="' + CSS.escape(frame.to) + '"]');
    if (edge) { edge.classList.add('active-edge'); break; }
  }
  const active = svg.querySelector('g.state.active');
  if (active && active.scrollIntoView && document.body.dataset.ready === 'true') active.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

function renderStep(frame) {
  const panel = $('step');
  const run = data.runs[frame.run];
  const step = run.steps.find((each) => each.step === frame.step);
  panel.replaceChildren();
  panel.dataset.step = String(frame.step);
  const runUsage = { inputTokens: 0, outputTokens: 0 };
  let runCost = 0;
  let costKnown = true;
  for (const each of run.steps) {
    if (each.step > frame.step) break;
    runUsage.inputTokens += each.usage.inputTokens || 0;
    runUsage.outputTokens += each.usage.outputTokens || 0;
    if (each.costUsd === undefined) costKnown = false; else runCost += each.costUsd;
  }
  const facts = el('div', 'facts-inline');
  fact(facts, 'run', (frame.run + 1) + ' of ' + data.runs.length + ' · ' + run.outcome);
  fact(facts, 'run so far', tokens(runUsage));
  fact(facts, 'cost so far', costKnown && run.steps.length > 0 ? '$' + runCost.toFixed(6) : 'unknown (no price for the model)');
  panel.append(facts);
  if (!step) {
    panel.append(el('p', 'muted', frame.step === 0 ? 'Before the first model call of this run.' : 'Step ' + frame.step + ' has no recorded result yet.'));
    return;
  }
  const head = el('div', 'facts-inline');
  fact(head, 'step', String(step.step));
  fact(head, 'finish', step.finishReason || 'none');
  fact(head, 'attempts', String(step.attempts));
  fact(head, 'tokens', tokens(step.usage));
  fact(head, 'cost', step.costUsd !== undefined ? '$' + step.costUsd.toFixed(6) : 'unknown');
  if (step.model) fact(head, 'model', step.model);
  panel.append(head);
  for (const failed of step.failedAttempts) panel.append(el('p', 'run-error', 'attempt ' + failed.attempt + ' failed: ' + failed.error.kind + ' · ' + failed.error.message));
  if (step.reasoning) panel.append(el('div', 'step-reasoning', step.reasoning));
  panel.append(step.text ? el('div', 'step-text', step.text) : el('div', 'step-text empty', 'no text'));
  if (step.toolCalls.length > 0) {
    const table = el('table', 'tool-calls');
    const header = el('tr');
    for (const name of ['tool', 'input', 'outcome', 'output (start)']) header.append(el('th', '', name));
    table.append(header);
    for (const call of step.toolCalls) {
      const row = el('tr', 'tool-call');
      row.dataset.toolCallId = call.toolCallId;
      const status = call.durationMs === undefined ? 'pending' : call.isError ? 'error' : 'ok';
      const input = el('td'); input.append(el('pre', 'value', json(call.input)));
      const outcomeCell = el('td'); outcomeCell.append(el('span', 'status status-' + status, status === 'pending' ? 'no result' : status));
      const output = el('td'); output.append(call.outputPreview !== undefined ? el('pre', 'value', call.outputPreview) : el('span', 'muted', '–'));
      row.append(el('td', 'tool-name', call.toolName), input, outcomeCell, output);
      table.append(row);
    }
    panel.append(table);
  }
}

function partText(part) {
  switch (part.type) {
    case 'text': return part.text;
    case 'reasoning': return '(reasoning) ' + part.text;
    case 'tool-call': return '→ ' + part.toolName + ' ' + json(part.input);
    case 'tool-result': return '← ' + part.toolName + ': ' + json(part.output && 'value' in part.output ? part.output.value : part.output);
    case 'tool-approval-request': return '? approval asked for ' + part.toolCallId;
    case 'tool-approval-response': return (part.approved ? '✓ approved ' : '✗ denied ') + part.approvalId;
    default: return '[' + part.type + ']';
  }
}

function renderMessages(list, messages, frameIndex) {
  const items = messages.map((message, index) => {
    const item = el('li', 'message role-' + message.role);
    item.value = index;
    item.dataset.role = message.role;
    item.append(el('span', 'role', message.role));
    const text = typeof message.content === 'string' ? message.content : message.content.map(partText).join('\n');
    item.append(el('pre', '', text));
    return item;
  });
  list.replaceChildren(...items);
  list.dataset.frame = String(frameIndex);
  list.dataset.count = String(messages.length);
}

async function showPoint(index) {
  const seq = ++pointSeq;
  let details = pointCache.get(index);
  if (!details) {
    const response = await fetch(api('/api/point', '&frame=' + index));
    details = await response.json();
    if (!response.ok) {
      if (seq === pointSeq) $('context').replaceChildren(el('li', 'run-error', details.error || response.statusText));
      return;
    }
    pointCache.set(index, details);
  }
  if (seq !== pointSeq) return;
  renderMessages($('context'), details.context, index);
  renderMessages($('messages'), details.messages, index);
}

function renderFork(frame) {
  const from = $('fork-from');
  const button = $('fork-run');
  if (frame.forkCheckpoint === undefined) {
    from.textContent = 'No checkpoint at or before this point: nothing to fork from yet.';
    button.disabled = true;
    return;
  }
  const checkpoint = data.checkpoints.find((each) => each.id === frame.forkCheckpoint);
  from.textContent = 'Forks ' + sessionId + ' at checkpoint ' + frame.forkCheckpoint + (checkpoint ? ' (step ' + checkpoint.step + ', ' + checkpoint.state + ', ' + checkpoint.messageCount + ' messages)' : '') + '; this session stays as it is.';
  from.dataset.checkpoint = String(frame.forkCheckpoint);
  button.disabled = false;
}

function show(index) {
  if (!data || data.frames.length === 0) {
    $('position').textContent = 'no events recorded';
    return;
  }
  index = Math.max(0, Math.min(data.frames.length - 1, index));
  current = index;
  const frame = data.frames[index];
  light(frame);
  $('scrubber').value = String(index);
  $('position').textContent = 'event ' + (index + 1) + ' of ' + data.frames.length;
  const now = $('now');
  now.replaceChildren();
  const event = el('span', 'event', frame.event);
  const state = el('span', 'mono', frame.from + ' → ' + frame.to);
  state.id = 'current-state';
  state.dataset.state = frame.to;
  now.append(event, state, el('span', 'muted', 'run ' + (frame.run + 1) + ' · step ' + frame.step + ' · +' + Math.max(0, frame.at - data.runs[frame.run].startedAt) + ' ms'));
  document.body.dataset.frame = String(index);
  document.body.dataset.activeState = frame.to;
  renderStep(frame);
  renderFork(frame);
  history.replaceState(null, '', '#frame=' + index);
  void showPoint(index);
}

function atEnd() { return data && current >= data.frames.length - 1; }
function setPlaying(on) {
  clearInterval(playTimer);
  playTimer = null;
  $('play').setAttribute('aria-pressed', String(on));
  $('play').textContent = on ? '⏸' : '▶';
  if (!on) return;
  if (atEnd()) show(0);
  playTimer = setInterval(() => {
    if (atEnd()) { if (!$('follow').checked) setPlaying(false); return; }
    show(current + 1);
  }, PLAY_MS);
}

$('first').addEventListener('click', () => show(0));
$('back').addEventListener('click', () => show(current - 1));
$('forward').addEventListener('click', () => show(current + 1));
$('last').addEventListener('click', () => show(Infinity));
$('play').addEventListener('click', () => setPlaying(playTimer === null));
$('scrubber').addEventListener('input', (event) => show(Number(event.target.value)));
document.addEventListener('keydown', (event) => {
  const target = event.target;
  const typing = target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type !== 'range' && target.type !== 'checkbox');
  if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
  const keys = { ArrowLeft: () => show(current - 1), ArrowRight: () => show(current + 1), Home: () => show(0), End: () => show(Infinity), ' ': () => setPlaying(playTimer === null) };
  const action = keys[event.key];
  if (!action) return;
  event.preventDefault();
  action();
});

$('fork-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const frame = data && data.frames[current];
  const status = $('fork-status');
  status.className = '';
  if (!frame || frame.forkCheckpoint === undefined) return;
  const requestId = crypto.randomUUID();
  const body = { requestId, checkpoint: frame.forkCheckpoint, prompt: $('fork-prompt').value, instructions: $('fork-instructions').value, model: $('fork-model').value };
  const editIndex = $('fork-edit-index').value;
  if (editIndex !== '') body.edit = { index: Number(editIndex), text: $('fork-edit-text').value };
  $('fork-run').disabled = true;
  status.textContent = 'forking…';
  try {
    const response = await fetch(api('/api/fork'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    const target = '/?token=' + encodeURIComponent(token) + '&session=' + encodeURIComponent(answer.sessionId);
    if (answer.problem) {
      status.className = 'problem';
      status.textContent = 'Forked as ' + answer.sessionId + ', but it could not run on: ' + answer.problem + ' ';
      const link = el('a', '', 'open the fork');
      link.href = target;
      status.append(link);
      return;
    }
    location.assign(target);
  } catch (error) {
    status.className = 'problem';
    status.textContent = 'The fork failed: ' + error.message;
  } finally {
    $('fork-run').disabled = false;
  }
});
if (!canRun) $('fork-prompt').placeholder = 'loopchart open was started without --model: the fork is made, not run';

async function start() {
  await loadData();
  if (!data) return;
  const asked = /^#frame=(\d+)$/.exec(location.hash);
  show(asked ? Number(asked[1]) : data.frames.length - 1);
  document.body.dataset.ready = 'true';
  performance.mark('loopchart-ready');
  setInterval(async () => {
    const following = atEnd();
    try {
      if (!(await loadData())) return;
    } catch (error) {
      return;
    }
    show(following && $('follow').checked ? Infinity : current);
  }, POLL_MS);
}
void start();
})();
`;
