/**
 * What every option that takes secrets accepts (`createAgent({ secrets })`, the inspector
 * helpers' `secrets`, `bashTool({ redact })`):
 * strings, and `undefined` for a secret that is not set, so that
 * `[process.env.OPENAI_API_KEY]` can be passed as it is.
 */
export type SecretList = ReadonlyArray<string | undefined>;

/**
 * Thrown where a secrets option is not a list of strings. `option` names it
 * (`bashTool options.redact[1]`); the message gives the type of the bad value,
 * never the value itself, which may be a secret.
 */
export class SecretsOptionError extends TypeError {
  override readonly name = 'SecretsOptionError';
  constructor(
    readonly option: string,
    problem: string,
  ) {
    super(`${option}: ${problem}`);
  }
}

/**
 * The secrets of a secrets option, checked: `undefined` and empty strings are
 * left out (a variable that is not set has nothing to redact), and anything
 * else that is not a string, or a list that is not an array, throws
 * {@link SecretsOptionError} naming `option`. Pure.
 *
 * @example
 * secretList([process.env.OPENAI_API_KEY, 'sk-live-123456'], 'bashTool options.redact') // ['sk-live-123456'] when the variable is unset
 * secretList(undefined, 'bashTool options.redact')                                       // []
 * secretList(['sk-live-123456', 42], 'createWebSocketInspector options.secrets')          // throws: createWebSocketInspector options.secrets[1]: …
 */
export function secretList(value: unknown, option: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new SecretsOptionError(option, `expected an array of secrets (strings), got ${describe(value)}`);
  const secrets: string[] = [];
  value.forEach((secret: unknown, index) => {
    if (secret === undefined || secret === '') return;
    if (typeof secret !== 'string') {
      throw new SecretsOptionError(`${option}[${index}]`, `expected a secret (a string), or undefined for one that is not set; got ${describe(secret)}`);
    }
    secrets.push(secret);
  });
  return secrets;
}

/** The kind of a value, never the value: a wrong secret may still be a secret. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
