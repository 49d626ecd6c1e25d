import path from 'node:path';
import { z } from 'zod';
import { ENV_VARIABLE_NAME } from '../secrets/credential-variables.js';
import { agentTimeoutSchema } from '../options.js';
import { builtinToolNames } from '../tools/index.js';
import { parseModelSpec } from './model.js';
import { permissionRuleProblem } from './permission-rule.js';
import { permissionModes } from './permissions.js';
import { reasoningEfforts } from './reasoning-settings.js';

const envName = z.string().regex(ENV_VARIABLE_NAME, 'expected the name of an environment variable');

const httpURL = z.string().refine((text) => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol), 'expected an http or https URL');

/** How to reach one provider: what `--base-url` and `--api-key-env` say on the command line. */
const providerSettingsSchema = z.strictObject({
  baseURL: httpURL.optional(),
  apiKeyEnv: envName.optional(),
});

const rule = z.string().superRefine((text, context) => {
  const problem = permissionRuleProblem(text);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

/**
 * A config file (`.loopchart.json` in the workspace, `~/.config/loopchart/config.json`): the
 * defaults of `loopchart run` for a real model. Unknown fields are errors.
 */
export const cliConfigSchema = z.strictObject({
  /** The model of a prompt run without `--model`: `provider:model-id`. */
  model: z
    .string()
    .superRefine((text, context) => {
      try {
        parseModelSpec(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message.replace(/^--model /, '') : String(error) });
      }
    })
    .optional(),
  /** Per provider: its base URL and the variable its key is read from. */
  providers: z
    .strictObject({
      openai: providerSettingsSchema.optional(),
      anthropic: providerSettingsSchema.optional(),
      google: providerSettingsSchema.optional(),
      'openai-compatible': providerSettingsSchema.optional(),
    })
    .optional(),
  tools: z.array(z.enum(builtinToolNames as [string, ...string[]])).optional(),
  maxSteps: z.number().int().positive().optional(),
  /** Time limits of a run, as `createAgent`'s `timeout`: a number is the whole run, an object sets each limit. */
  timeout: agentTimeoutSchema,
  permissionMode: z.enum(permissionModes as [string, ...string[]]).optional(),
  allow: z.array(rule).optional(),
  deny: z.array(rule).optional(),
  agentsMd: z.boolean().optional(),
  appendSystem: z.string().min(1).optional(),
  reasoningEffort: z.enum(reasoningEfforts as [string, ...string[]]).optional(),
  thinkingBudget: z.number().int().positive().optional(),
  /**
   * Workspaces whose `.loopchart.json` may also set what only you may set (`providers`' `baseURL`
   * and `apiKeyEnv`, `allow`, `permissionMode: "allow-edits"`): absolute paths. Only your own
   * config may say this.
   */
  trustedWorkspaces: z.array(z.string().refine((text) => path.isAbsolute(text), 'expected an absolute path')).optional(),
});

export type CliConfig = z.infer<typeof cliConfigSchema>;
