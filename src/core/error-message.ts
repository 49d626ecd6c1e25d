import { getErrorMessage } from '@ai-sdk/provider-utils';

/** The human message of anything thrown: `error.message` for errors (without the class-name prefix), a string otherwise. Never throws. */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    return getErrorMessage(error) || 'Unknown error';
  } catch {
    return 'Unknown error';
  }
}
