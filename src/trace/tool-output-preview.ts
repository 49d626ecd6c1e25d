const PREVIEW_CHARS = 2000;

/** The start of a tool's output as text, as the trace keeps it: at most 2,000 characters, `…` when cut. */
export function toolOutputPreview(output: unknown): string {
  const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? String(output));
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}
