import { describe, expect, it } from 'vitest';
import { formatDuration, formatOffset } from '../../src/report/format-duration.js';
import { formatValue } from '../../src/report/format-value.js';
import { escapeHtml } from '../../src/report/html-escape.js';
import { attributes, element } from '../../src/report/markup.js';
import { estimateTextWidth } from '../../src/report/text-metrics.js';
import { timeTicks } from '../../src/report/time-ticks.js';

describe('escapeHtml', () => {
  it('turns every character with a meaning in markup or attributes into an entity', () => {
    expect(escapeHtml(`<script>alert("x" + 'y') && 1</script>`)).toBe('&lt;script&gt;alert(&quot;x&quot; + &#39;y&#39;) &amp;&amp; 1&lt;/script&gt;');
  });

  it('leaves other text, including non-ASCII, as it is', () => {
    expect(escapeHtml('It is 4 °C — fine ✓')).toBe('It is 4 °C — fine ✓');
  });

  it('escapes an entity-looking text, so that it shows as typed', () => {
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
  });
});

describe('attributes and element', () => {
  it('escapes values, rounds numbers, and leaves out undefined and false', () => {
    expect(attributes({ class: 'a', 'data-x': '"><script>', x: 1.26, hidden: false, missing: undefined, open: true })).toBe(
      ' class="a" data-x="&quot;&gt;&lt;script&gt;" x="1.3" open=""',
    );
  });

  it('wraps content that is already markup', () => {
    expect(element('td', { class: 'num' }, '<b>1</b>')).toBe('<td class="num"><b>1</b></td>');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [0.4, '0 ms'],
    [340, '340 ms'],
    [999.6, '1000 ms'],
    [1234, '1.23 s'],
    [12_345, '12.3 s'],
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
    [-1, '–'],
    [Number.NaN, '–'],
  ])('%s ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('formats an offset from the run start with a plus', () => {
    expect(formatOffset(1500)).toBe('+1.50 s');
  });
});

describe('formatValue', () => {
  it('shows strings as they are and anything else as indented JSON', () => {
    expect(formatValue('plain\ntext')).toBe('plain\ntext');
    expect(formatValue({ path: 'README.md', n: [1] })).toBe('{\n  "path": "README.md",\n  "n": [\n    1\n  ]\n}');
    expect(formatValue(undefined)).toBe('undefined');
  });

  it('cuts long text and says how much is missing', () => {
    expect(formatValue('x'.repeat(10), 4)).toBe('xxxx… (6 more characters)');
  });

  it('survives values JSON cannot encode', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(formatValue(circular)).toBe('[object Object]');
    expect(formatValue({ big: 10n })).toContain('"10"');
  });
});

describe('estimateTextWidth', () => {
  it('grows with the text and the font size, and more for wide letters', () => {
    expect(estimateTextWidth('toolExec', 13)).toBeGreaterThan(estimateTextWidth('toolExec', 11));
    expect(estimateTextWidth('mmmm', 12)).toBeGreaterThan(estimateTextWidth('iiii', 12));
    expect(estimateTextWidth('', 12)).toBe(0);
  });

  it('uses a fixed advance for monospace text', () => {
    expect(estimateTextWidth('abcd', 10, { monospace: true })).toBeCloseTo(24.8);
  });
});

describe('timeTicks', () => {
  it.each([
    [1000, [0, 200, 400, 600, 800, 1000]],
    [340, [0, 100, 200, 300]],
    [7, [0, 2, 4, 6]],
    [0, [0]],
    [Number.NaN, [0]],
  ])('ticks for %s ms', (total, ticks) => {
    expect(timeTicks(total)).toEqual(ticks);
  });

  it('never gives more ticks than asked for, plus zero', () => {
    for (const total of [1, 3, 17, 99, 101, 999, 4321, 65_000]) expect(timeTicks(total, 6).length).toBeLessThanOrEqual(7);
  });
});
