import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertSessionId, sessionIdProblem, sessionIdSchema } from '../../src/persistence/session-id.js';

describe('the session id rule', () => {
  it('takes letters, digits, dots, dashes and underscores, 1 to 128 of them, not starting with a dot', () => {
    for (const id of ['chat-42', 'chat_42', 'a', 'A.b-c_d', '_x', '-x', 'x'.repeat(128)]) expect(sessionIdProblem(id)).toBeUndefined();
    for (const id of ['', '.hidden', '..', 'a/b', 'a\\b', 'a:b', 'a%b', 'a b', 'é', 'x'.repeat(129), 'chat\n7']) expect(sessionIdProblem(id)).toMatch(/1-128 letters/);
  });

  it('is one rule: the assertion, the zod schema and the problem text agree on every string', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '0', '.', '-', '_', '/', ':', '%', '\\', ' ') , maxLength: 140 }), (id) => {
        const valid = sessionIdProblem(id) === undefined;
        expect(sessionIdSchema.safeParse(id).success).toBe(valid);
        expect(() => assertSessionId(id)).toSatisfy((call: () => void) => {
          try {
            call();
            return valid;
          } catch (error) {
            return !valid && error instanceof TypeError;
          }
        });
      }),
    );
  });

  it('names the id and the rule in its error', () => {
    expect(() => assertSessionId('a/b')).toThrow('Invalid session id "a/b": expected 1-128 letters, digits, dots, dashes or underscores, not starting with a dot.');
    expect(z.object({ sessionId: sessionIdSchema }).safeParse({ sessionId: '.x' }).error?.issues[0]).toMatchObject({ path: ['sessionId'], message: expect.stringMatching(/not starting with a dot/) });
  });
});
