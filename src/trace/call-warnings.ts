import type { CallWarning } from 'ai';

/**
 * A call warning as one line of text, in the AI SDK's words (`logWarnings`) without its prefix:
 * what the provider could not do, and its details.
 *
 * @example
 * warningText({ type: 'unsupported', feature: 'responseFormat', details: 'JSON response format schema is only supported with structuredOutputs' })
 * // 'The feature "responseFormat" is not supported. JSON response format schema is only supported with structuredOutputs'
 */
export function warningText(warning: CallWarning): string {
  switch (warning.type) {
    case 'unsupported':
      return `The feature "${warning.feature}" is not supported.${warning.details ? ` ${warning.details}` : ''}`;
    case 'compatibility':
      return `The feature "${warning.feature}" is used in a compatibility mode.${warning.details ? ` ${warning.details}` : ''}`;
    case 'deprecated':
      return `Deprecated: "${warning.setting}". ${warning.message}`;
    case 'other':
      return warning.message;
    default:
      // A warning kind added after this was written: shown whole rather than lost.
      return JSON.stringify(warning);
  }
}

/** The key two equal warnings share, to tell the distinct ones apart (field order aside). */
export function warningKey(warning: CallWarning): string {
  return JSON.stringify(Object.entries(warning).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The warnings without repeats, each kept where it first appears.
 *
 * @example
 * distinctWarnings([{ type: 'other', message: 'a' }, { type: 'other', message: 'a' }]) // [{ type: 'other', message: 'a' }]
 */
export function distinctWarnings<T extends CallWarning>(warnings: readonly T[]): T[] {
  const seen = new Set<string>();
  return warnings.filter((warning) => {
    const key = warningKey(warning);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
