import { describe, expect, it } from 'vitest';
import { commandEnvironment, isCredentialVariable, isUrlWithPassword, passedVariablesProblem } from '../../src/secrets/credential-variables.js';

describe('isCredentialVariable', () => {
  it.each(['GITHUB_TOKEN', 'GH_TOKEN', 'NPM_TOKEN', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'PGPASSWORD', 'MYSQL_PWD_PASSWD', 'GPG_PASSPHRASE', 'GOOGLE_APPLICATION_CREDENTIALS', 'stripe_secret', 'OPENAI_API_KEY', 'HF_TOKEN'])(
    '%s looks like a credential by its name',
    (name) => expect(isCredentialVariable(name, 'x')).toBe(true),
  );

  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'PWD', 'SSH_AUTH_SOCK', 'NODE_ENV', 'CI'])('%s does not', (name) => expect(isCredentialVariable(name, '/usr/bin')).toBe(false));

  it('takes AUTH, JWT, PAT, DSN and WEBHOOK as a whole part of a name, and only so (GIT_AUTHOR_NAME and PATH are no credentials)', () => {
    for (const name of ['NPM_CONFIG__AUTH', 'DOCKER_AUTH_CONFIG', 'CI_JOB_JWT', 'GH_PAT', 'SENTRY_DSN', 'SLACK_WEBHOOK_URL', 'auth']) expect(isCredentialVariable(name, 'x'), name).toBe(true);
    for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'PATH', 'PATHEXT', 'XDG_DATA_DIRS', 'DSNAME']) expect(isCredentialVariable(name, 'x'), name).toBe(false);
  });

  it('looks at the value too: a URL with a password is a connection string that holds its credential', () => {
    expect(isCredentialVariable('DATABASE_URL', 'postgres://app:hunter22@db:5432/app')).toBe(true);
    expect(isCredentialVariable('REDIS_URL', 'redis://:s3cret@127.0.0.1:6379')).toBe(true);
    expect(isCredentialVariable('DATABASE_URL', 'postgres://app@db/app')).toBe(false);
    expect(isCredentialVariable('DATABASE_URL', undefined)).toBe(false);
  });
});

describe('isUrlWithPassword', () => {
  it('finds a password in the user part only', () => {
    expect(isUrlWithPassword('https://user:ghp_abc@github.com/org/repo.git')).toBe(true);
    expect(isUrlWithPassword('https://example.com/a@b:c')).toBe(false);
    expect(isUrlWithPassword('mailto:someone@example.com')).toBe(false);
    expect(isUrlWithPassword('not a url: a@b')).toBe(false);
  });
});

describe('commandEnvironment', () => {
  it('leaves the credentials out, says which, and keeps the rest', () => {
    const env = { PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_1', DATABASE_URL: 'postgres://a:b@h/d', LANG: 'C.UTF-8', ANTHROPIC_API_KEY: 'sk-ant' };
    expect(commandEnvironment(env)).toEqual({ env: { PATH: '/usr/bin', LANG: 'C.UTF-8' }, withheld: ['ANTHROPIC_API_KEY', 'DATABASE_URL', 'GITHUB_TOKEN'] });
  });

  it('passes the credentials it is told to, but never a provider key', () => {
    const env = { PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_1', NPM_TOKEN: 'npm_1', OPENAI_API_KEY: 'sk-1' };
    expect(commandEnvironment(env, ['NPM_TOKEN', 'OPENAI_API_KEY'])).toEqual({ env: { PATH: '/usr/bin', NPM_TOKEN: 'npm_1' }, withheld: ['GITHUB_TOKEN', 'OPENAI_API_KEY'] });
  });
});

describe('passedVariablesProblem', () => {
  it('accepts names that would be left out', () => {
    expect(passedVariablesProblem(['GITHUB_TOKEN', 'DATABASE_URL'], { DATABASE_URL: 'postgres://a:b@h/d' })).toBeUndefined();
  });

  it('refuses a provider key, a misspelt name that would pass nothing, and what is not a name', () => {
    expect(passedVariablesProblem(['OPENAI_API_KEY'], {})).toBe('OPENAI_API_KEY is a provider key, and provider keys never reach a command');
    expect(passedVariablesProblem(['GITHUB_TOKN'], {})).toBe(
      "GITHUB_TOKN is not left out of a command's environment (only names with KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASSPHRASE or CREDENTIAL in them, and URLs with a password, are; GITHUB_TOKN is not set): there is nothing to pass",
    );
    expect(passedVariablesProblem(['DATABASE_URL'], { DATABASE_URL: 'postgres://app@db/app' })).toMatch(/^DATABASE_URL is not left out .*are\): there is nothing to pass$/);
    expect(passedVariablesProblem(['A B'], {})).toBe('"A B" is not the name of an environment variable');
  });
});
