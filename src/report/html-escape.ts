const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text made safe for HTML and SVG element content and for quoted attribute
 * values: `&`, `<`, `>`, `"` and `'` become entities. Everything a trace
 * carries — model text, tool input and output, error messages, state names —
 * goes through here before it reaches the report.
 *
 * @example
 * escapeHtml('<script>alert("hi")</script>') // '&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt;'
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}
