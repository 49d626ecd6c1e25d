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
