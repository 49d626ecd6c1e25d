/**
 * Which environment variables a shell command is not given: those that look
 * like credentials. A command the model writes can print its environment, and
 * what it prints goes to the model's provider, the events, the trace and the
 * session; a token that is not there cannot leak. Peers draw the line alike
 * (Codex's shell environment policy leaves out `*KEY*`, `*SECRET*` and
 * `*TOKEN*` by default).
 */
import { isProviderKeyVariable } from './provider-key-variables.js';

/** What an environment variable's name may be: letters, digits and underscores, not starting with a digit. */
export const ENV_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Words in a variable's name that say it holds a credential, in any case and anywhere in the name. */
const CREDENTIAL_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL/i;

/**
 * Words that say so only as a whole part of the name (between `_`s): anywhere, `AUTH` would take
 * `GIT_AUTHOR_NAME` and `PAT` would take `PATH`. `NPM_CONFIG__AUTH`, `DOCKER_AUTH_CONFIG`,
 * `CI_JOB_JWT`, `GH_PAT`, `SENTRY_DSN` and `SLACK_WEBHOOK_URL` hold credentials.
 */
// `SSH_AUTH_SOCK` is a socket's path (git over ssh needs it), not a credential.
const CREDENTIAL_NAME_PART = /(?:^|_)(?:AUTH(?!_SOCK$)|JWT|PAT|DSN|WEBHOOK)(?:_|$)/i;

/**
 * Whether a value is a URL with a password in it (`postgres://app:pw@db/app`,
 * `https://user:token@host`): a connection string holds its credential.
 *
 * @example
 * isUrlWithPassword('postgres://app:hunter22@db/app') // true
 * isUrlWithPassword('https://example.com/a@b')        // false
 */
export function isUrlWithPassword(value: string): boolean {
  if (!value.includes('@') || !URL.canParse(value)) return false;
  return new URL(value).password !== '';
}

/**
 * Whether the variable `name`, holding `value`, looks like a credential: a
 * provider key (`*_API_KEY`, …), a name with KEY, SECRET, TOKEN, PASSWORD,
 * PASSWD, PASSPHRASE or CREDENTIAL in it, or AUTH, JWT, PAT, DSN or WEBHOOK as
 * a part of it between `_`s, or a value that is a URL with a password.
 *
 * @example
 * isCredentialVariable('GITHUB_TOKEN', 'ghp_…')                          // true
 * isCredentialVariable('DATABASE_URL', 'postgres://app:pw@db/app')        // true
 * isCredentialVariable('PATH', '/usr/bin')                                // false
 */
export function isCredentialVariable(name: string, value: string | undefined): boolean {
  return isProviderKeyVariable(name) || CREDENTIAL_NAME.test(name) || CREDENTIAL_NAME_PART.test(name) || (value !== undefined && isUrlWithPassword(value));
}

/** A command's environment, and the names left out of it. */
export interface CommandEnvironment {
  env: NodeJS.ProcessEnv;
  /** The credential variables of the starting environment the command does not get, sorted. */
  withheld: string[];
}

/**
 * `env` without its credential variables (`isCredentialVariable`), but for
 * the ones named in `pass`. A provider key is never passed (`passedVariablesProblem`
 * refuses to name one).
 *
 * @example
 * commandEnvironment({ PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_…', NPM_TOKEN: 'npm_…' }, ['NPM_TOKEN'])
 * // { env: { PATH: '/usr/bin', NPM_TOKEN: 'npm_…' }, withheld: ['GITHUB_TOKEN'] }
 */
export function commandEnvironment(env: NodeJS.ProcessEnv, pass: readonly string[] = []): CommandEnvironment {
  const kept: NodeJS.ProcessEnv = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const passed = pass.includes(name) && !isProviderKeyVariable(name);
    if (isCredentialVariable(name, value) && !passed) withheld.push(name);
    else kept[name] = value;
  }
  return { env: kept, withheld: withheld.sort() };
}

/**
 * What is wrong with `pass`, the credential variables a command is to get all
 * the same, or undefined: a name that is not a variable's, a provider key
 * (never passed), or a name that would not be left out anyway (a misspelt
 * one would otherwise pass nothing, unnoticed).
 *
 * @example
 * passedVariablesProblem(['GITHUB_TOKN'], {}) // "GITHUB_TOKN is not left out of a command's environment …"
 */
export function passedVariablesProblem(pass: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  for (const name of pass) {
    if (!ENV_VARIABLE_NAME.test(name)) return `${JSON.stringify(name)} is not the name of an environment variable`;
    if (isProviderKeyVariable(name)) return `${name} is a provider key, and provider keys never reach a command`;
    if (!isCredentialVariable(name, env[name])) {
      return `${name} is not left out of a command's environment (only names with KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASSPHRASE or CREDENTIAL in them, and URLs with a password, are${env[name] === undefined ? `; ${name} is not set` : ''}): there is nothing to pass`;
    }
  }
  return undefined;
}
