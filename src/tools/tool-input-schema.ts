import { z } from 'zod';

/**
 * The input schema of a built-in tool: an object that refuses a field it does
 * not know, naming it and the fields the tool takes. A plain `z.object` drops
 * such a field without a word, so a model that sends `timeout` for `timeoutMs`
 * or `include` for `glob` would believe it had been honoured.
 *
 * @example
 * const schema = toolInputObject('ls', { path: z.string().optional() });
 * schema.safeParse({ recursive: true }).error?.issues[0]?.message
 * // "Unknown input field 'recursive' for ls; it takes: path"
 */
export function toolInputObject<Shape extends z.ZodRawShape>(toolName: string, shape: Shape): z.ZodObject<Shape, z.core.$strict> {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const fields = issue.keys.map((key) => `'${key}'`).join(', ');
      return `Unknown input ${issue.keys.length === 1 ? 'field' : 'fields'} ${fields} for ${toolName}; it takes: ${known}`;
    },
  });
}
