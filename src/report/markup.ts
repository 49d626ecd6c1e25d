import { escapeHtml } from './html-escape.js';

/** Attribute values: text is escaped, numbers are written rounded to 0.1, `undefined` and `false` leave the attribute out. */
export type AttributeValue = string | number | boolean | undefined;

/**
 * An HTML or SVG element's attributes as text, each value escaped.
 *
 * @example
 * attributes({ class: 'state visited', 'data-state': 'a"b', x: 1.234, hidden: false }) // ' class="state visited" data-state="a&quot;b" x="1.2"'
 */
export function attributes(values: Record<string, AttributeValue>): string {
  let text = '';
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === false) continue;
    const shown = value === true ? '' : typeof value === 'number' ? String(Math.round(value * 10) / 10) : value;
    text += ` ${name}="${escapeHtml(shown)}"`;
  }
  return text;
}

/**
 * One element: its attributes escaped, its content as given (already markup).
 *
 * @example
 * element('td', { class: 'num' }, '42') // '<td class="num">42</td>'
 */
export function element(name: string, values: Record<string, AttributeValue>, content = ''): string {
  return `<${name}${attributes(values)}>${content}</${name}>`;
}

/**
 * The start of a self-contained loopchart page, up to its `<body>`: UTF-8, a viewport, the given
 * extra head lines (a Content-Security-Policy, an icon), no referrer, the title (escaped) and the style.
 *
 * @example
 * documentStart({ title: 'Run report', style: 'body { margin: 0 }' }) + '<body>…</body>\n</html>\n'
 */
export function documentStart({ title, style, meta = [] }: { title: string; style: string; meta?: readonly string[] }): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    ...meta,
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${style}</style>`,
    '</head>',
  ].join('\n');
}
