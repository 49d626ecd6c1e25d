import { describe, expect, it } from 'vitest';
import { expandVariables } from '../../src/mcp/expand-variables.js';

describe('expandVariables', () => {
  const env = { HOST: 'example.com', EMPTY: '', TOKEN: 't0k' };

  it.each([
    ['https://${HOST}/mcp', 'https://example.com/mcp'],
    ['${MISSING:-http://127.0.0.1:3000}', 'http://127.0.0.1:3000'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${MISSING:-}', ''],
    ['Bearer ${TOKEN} and ${TOKEN}', 'Bearer t0k and t0k'],
    ['$HOST and ${} and ${1X} stay', '$HOST and ${} and ${1X} stay'],
  ])('%s becomes %s', (text, expanded) => {
    expect(expandVariables(text, env)).toEqual({ value: expanded, unset: [] });
  });

  it('walks objects and arrays, leaves keys and other values alone, and lists unset variables by path', () => {
    const input = { '${HOST}': ['${TOKEN}', 3, true, null, { deep: '${NOPE}' }] };
    expect(expandVariables(input, env, 'root')).toEqual({
      value: { '${HOST}': ['t0k', 3, true, null, { deep: '${NOPE}' }] },
      unset: [{ path: 'root.${HOST}.4.deep', name: 'NOPE' }],
    });
  });
});
