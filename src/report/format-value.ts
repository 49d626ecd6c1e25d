/**
 * Any trace value as readable text: strings as they are, everything else as
 * indented JSON. Text longer than `maxChars` is cut, and the cut says how much
 * was left out.
 *
 * @example
 * formatValue({ path: 'README.md' }) // '{\n  "path": "README.md"\n}'
 * formatValue('x'.repeat(10), 4)     // 'xxxx… (6 more characters)'
 */
export function formatValue(value: unknown, maxChars = 20_000): string {
  const text = typeof value === 'string' ? value : (safeStringify(value) ?? String(value));
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)` : text;
}

function safeStringify(value: unknown, indent = 2): string | undefined {
  try {
    return JSON.stringify(value, (_key, node: unknown) => (typeof node === 'bigint' ? node.toString() : node), indent);
  } catch {
    return undefined;
  }
}
