import { formatDuration } from './format-duration.js';
import { escapeHtml } from './html-escape.js';
import { element } from './markup.js';
import type { Timeline } from './timeline-lanes.js';
import { timeTicks } from './time-ticks.js';

const percent = (value: number) => `${Math.round(value * 1000) / 1000}%`;

/**
 * The timeline as HTML: a time axis, then one row per lane with its bars
 * placed and sized in proportion to time, each with its hover title.
 *
 * @example
 * timelineHtml(timelineLanes(trace, graph)) // '<div class="timeline">…'
 */
export function timelineHtml(timeline: Timeline): string {
  const total = timeline.totalMs > 0 ? timeline.totalMs : 1;
  const at = (ms: number) => percent((Math.min(Math.max(ms, 0), total) / total) * 100);
  const ticks = timeTicks(timeline.totalMs).map((tick) =>
    element('span', { class: 'tick', style: `left:${at(tick)}` }, escapeHtml(formatDuration(tick))),
  );
  const rows = timeline.lanes.map((lane) => {
    const bars = lane.bars.map((bar) =>
      element('span', {
        class: `bar bar-${bar.kind}`,
        style: `left:${at(bar.start)};width:${percent((Math.max(0, Math.min(bar.end, total) - Math.max(bar.start, 0)) / total) * 100)}`,
        title: bar.title,
      }),
    );
    return element(
      'div',
      { class: 'lane', 'data-state': lane.state },
      element('div', { class: 'lane-label', title: lane.label }, escapeHtml(lane.label)) + element('div', { class: 'track' }, bars.join('')),
    );
  });
  const axis = element('div', { class: 'lane axis' }, element('div', { class: 'lane-label' }) + element('div', { class: 'track' }, ticks.join('')));
  const gridlines = element('div', { class: 'gridlines', 'aria-hidden': 'true' }, timeTicks(timeline.totalMs).map((tick) => element('span', { style: `left:${at(tick)}` })).join(''));
  return element('div', { class: 'timeline' }, [axis, ...rows, gridlines].join('\n'));
}
