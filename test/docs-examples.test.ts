import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * What the docs take as given, as ambient declarations: the app's model, tools, agent and the like.
 * A block that uses anything else must import it.
 */
const GIVEN = `
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import type { Agent } from 'loopchart';
declare global {
  const model: LanguageModel;
  const cheaperModel: LanguageModel;
  const someTextOnlyModel: LanguageModelV4;
  const tools: ToolSet;
  const agent: Agent;
  const agents: Map<string, Agent>;
  const apiKey: string;
  const signal: AbortSignal;
  const socket: { send(data: string): void; on(event: 'message', listener: (raw: unknown) => void): void };
  function redact(messages: ModelMessage[]): ModelMessage[];
}
`;

/** Modules the docs import from the app itself (\`./tools.js\`: "your ToolSet"). */
const APP_MODULES: Record<string, string> = {
  'tools.ts': "import type { ToolSet } from 'ai';\nexport declare const tools: ToolSet;\n",
};

/** A block without imports is a fragment of an app: it gets the names of the root as well. */
const FRAGMENT_PRELUDE = "import { agentTool, ApprovalError, atMentions, createAgent, fileStore } from 'loopchart';\n";

interface Example {
  /** Where the block is: `docs/x.md:12`. */
  where: string;
  /** The virtual file the block is checked as. */
  fileName: string;
  source: string;
  /** Lines added before the block (the fragment prelude). */
  offset: number;
}

function examples(): Example[] {
  const documents = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];
  return documents.flatMap((document) => {
    const markdown = readFileSync(document, 'utf8');
    return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => {
      const line = markdown.slice(0, match.index).split('\n').length + 1;
      const code = match[1]!;
      const prelude = /^\s*import /m.test(code) ? '' : FRAGMENT_PRELUDE;
      return {
        where: `${document}:${line}`,
        fileName: resolve(`.docs-examples/${document.replace(/[/.]/g, '-')}-${index}.ts`),
        source: prelude + code,
        offset: prelude.split('\n').length - 1,
      };
    });
  });
}

/** Type-checks every block in memory against the project's tsconfig (its `paths` map `loopchart` to the sources). */
function typeErrors(blocks: Example[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(resolve('tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json could not be read');
  const sources = new Map<string, string>([
    [resolve('.docs-examples/given.d.ts'), `${GIVEN}export {};\n`],
    ...Object.entries(APP_MODULES).map(([name, source]): [string, string] => [resolve(`.docs-examples/${name}`), source]),
    ...blocks.map((block): [string, string] => [block.fileName, block.source]),
  ]);
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile, directoryExists } = host;
  const virtualDirectory = resolve('.docs-examples');
  host.directoryExists = (name) => name === virtualDirectory || (directoryExists?.(name) ?? ts.sys.directoryExists(name));
  host.fileExists = (fileName) => sources.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => sources.get(fileName) ?? readFile(fileName);
  const program = ts.createProgram({ rootNames: [...sources.keys()], options: { ...config.options, noEmit: true }, host });
  return blocks.flatMap((block) => {
    const file = program.getSourceFile(block.fileName);
    if (!file) return [`${block.where}: not compiled`];
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${block.where} (+${line - block.offset}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  });
}

describe('the examples in README.md and docs/', () => {
  it('every TypeScript block type-checks against the current API as written', () => {
    const blocks = examples();
    expect(blocks.length).toBeGreaterThan(10);
    expect(typeErrors(blocks)).toEqual([]);
  }, 120_000);
});
