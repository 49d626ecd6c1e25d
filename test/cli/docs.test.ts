import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { reportOptionNames, runOptionNames } from '../../src/cli/args.js';
import { helpText } from '../../src/cli/help.js';
import { EXPECTATION_FAILED, exitCodeByOutcome, USAGE_ERROR } from '../../src/cli/exit-codes.js';
import { scriptSchema } from '../../src/cli/script.js';
import { scriptTurnSchema } from '../../src/test/index.js';

const docs = await readFile('docs/cli.md', 'utf8');

describe('docs/cli.md', () => {
  it('documents every run option in its options table', () => {
    for (const option of runOptionNames) expect(docs).toMatch(new RegExp(`^\\| (\`-\\w\`, )?\`--${option}[ \`]`, 'm'));
  });

  it('documents every report option in the report section, and links the report guide', () => {
    const section = docs.slice(docs.indexOf('## `loopchart report`'), docs.indexOf('## `loopchart chart`'));
    expect(section).not.toBe('');
    for (const option of reportOptionNames) expect(section).toMatch(new RegExp(`^\\| (\`-\\w\`, )?\`--${option}[ \`]`, 'm'));
    expect(docs).toContain('(report.md)');
  });

  it('the help lists every option, and the report command', () => {
    for (const option of runOptionNames) expect(helpText('run')).toContain(`--${option}`);
    for (const option of reportOptionNames) expect(helpText('report')).toContain(`--${option}`);
    expect(helpText('main')).toContain('loopchart report <trace.json>');
  });

  it('has a row for every exit code, with the outcome it stands for', () => {
    for (const [outcome, code] of Object.entries(exitCodeByOutcome)) expect(docs).toMatch(new RegExp(`^\\| ${code} \\| .*\`${outcome}\``, 'm'));
    expect(docs).toMatch(new RegExp(`^\\| ${USAGE_ERROR} \\| usage error`, 'm'));
    expect(docs).toMatch(new RegExp(`^\\| ${EXPECTATION_FAILED} \\| the script's \`expect\` block failed`, 'm'));
  });

  it('documents every script field, every expect field and every turn field', () => {
    const fields = [
      ...Object.keys(scriptSchema.shape),
      ...Object.keys(scriptSchema.shape.expect.unwrap().shape).map((key) => `expect.${key}`),
      ...Object.keys(scriptTurnSchema.shape),
    ];
    for (const field of fields) expect(docs).toMatch(new RegExp(`^\\| \`${field.replace('.', '\\.')}\` \\|`, 'm'));
  });

  it('maps the flags of Claude Code, pi and gh to options loopchart has', () => {
    const section = docs.slice(docs.indexOf('## If you know Claude Code, pi or gh'), docs.indexOf('## `loopchart run`'));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.length).toBeGreaterThanOrEqual(20);
    const named = rows.flatMap((row) => [...(row.split(' | ')[1] ?? '').matchAll(/`(?:loopchart \w+ )?(--[a-z-]+)/g)].map((match) => match[1]!.slice(2)));
    expect(named.length).toBeGreaterThan(20);
    for (const option of named) expect([...runOptionNames, ...reportOptionNames, 'help']).toContain(option);
  });

  it('shows the bundled demo script verbatim as its example', async () => {
    expect(docs).toContain(`\`\`\`yaml\n${await readFile('examples/demo.yaml', 'utf8')}\`\`\``);
  });
});
