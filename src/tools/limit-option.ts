import { z } from 'zod';

/** A tool factory's count limit (`maxMatches`, `maxEntries`): a negative or fractional count, or NaN, would be ignored or limit to nothing. */
export const countLimitSchema = z.number().int().min(1);

/** A tool factory's `cwd`, the workspace root: an empty one would be this process's directory, unnoticed. */
export const workspaceCwdSchema = z.string().min(1, 'cwd must be a non-empty path');

/** `respectGitignore` of the search tools. */
export const respectGitignoreSchema = z.boolean().optional();
