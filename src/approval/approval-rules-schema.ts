import { z } from 'zod';
import { functionOption } from '../core/function-option.js';

const approvalRuleList = z.array(z.union([z.string().min(1), z.strictObject({ tool: z.string().min(1), when: functionOption<(input: unknown) => boolean>().optional() })]));

/**
 * Approval rules (`ApprovalRules`) as `createAgent`'s `approval` and `askForMcpTools` take them: a
 * misspelt key (`alow`) is refused, not carried on.
 *
 * @example
 * approvalRulesSchema.parse({ allow: ['read'], ask: [{ tool: 'bash', when: (input) => true }] });
 */
export const approvalRulesSchema = z.strictObject({
  deny: approvalRuleList.optional(),
  ask: approvalRuleList.optional(),
  allow: approvalRuleList.optional(),
  default: z.enum(['allow', 'deny', 'ask']).optional(),
});
