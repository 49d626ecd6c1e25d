import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { callOptions, readAll, readFunctionTool, textOnlyModel } from './support.js';

/** The call options the wrapped model actually received. */
async function sentToModel(options: LanguageModelV4CallOptions): Promise<LanguageModelV4CallOptions> {
  const { model, inner } = textOnlyModel([['ok']]);
  await readAll((await model.doStream(options)).stream);
  return inner.doStreamCalls[0]!;
}

function systemPrompt(options: LanguageModelV4CallOptions): string {
  const system = options.prompt.find((message) => message.role === 'system');
  return system?.role === 'system' ? system.content : '';
}

const lsFunctionTool = { ...readFunctionTool, name: 'ls', description: 'List a directory.' };

describe('textToolProtocol: the prompt', () => {
  it('puts the protocol, the tool descriptions and their JSON Schemas into the system prompt, and sends no native tools', async () => {
    const sent = await sentToModel(callOptions());
    const system = systemPrompt(sent);
    expect(system.startsWith('Be brief.\n\n# Tools')).toBe(true);
    expect(system).toContain('<use_tool><tool_name>NAME</tool_name><arguments>{"parameter": "value"}</arguments></use_tool>');
    expect(system).toContain('<tool_result><tool_name>NAME</tool_name><error>MESSAGE</error></tool_result>');
    expect(system).toContain('### read\nRead a text file in the workspace.');
    expect(system).toContain(JSON.stringify(readFunctionTool.inputSchema));
    expect(sent.tools).toBeUndefined();
    expect(sent.toolChoice).toBeUndefined();
  });

  it('adds a system message when the prompt has none', async () => {
    const sent = await sentToModel(callOptions({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }));
    expect(sent.prompt[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/^# Tools/) });
    expect(sent.prompt[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
  });

  it('rewrites earlier tool calls as blocks and tool results as a user message, errors in <error>', async () => {
    const history: LanguageModelV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'Look around.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: { path: 'src' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: { path: 'missing.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'a.ts\nb.ts' } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'error-text', value: "Path 'missing.ts' does not exist" } },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
    ];
    const sent = await sentToModel(callOptions({ prompt: history }));
    expect(sent.prompt.slice(1)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Look around.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'text', text: '<use_tool><tool_name>ls</tool_name><arguments>{"path":"src"}</arguments></use_tool>' },
          { type: 'text', text: '<use_tool><tool_name>read</tool_name><arguments>{"path":"missing.ts"}</arguments></use_tool>' },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text:
              '<tool_result><tool_name>ls</tool_name><result>a.ts\nb.ts</result></tool_result>\n' +
              "<tool_result><tool_name>read</tool_name><error>Path 'missing.ts' does not exist</error></tool_result>",
          },
          { type: 'text', text: 'And now?' },
        ],
      },
    ]);
    expect(JSON.stringify(sent.prompt)).not.toMatch(/"type":"tool-(call|result)"|"role":"tool"/);
  });

  it('shows JSON results as JSON and a denied execution as an error', async () => {
    const sent = await sentToModel(
      callOptions({
        prompt: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }] },
          {
            role: 'tool',
            content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'json', value: { celsius: 4 } } }],
          },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'rm -rf /' } }] },
          {
            role: 'tool',
            content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'bash', output: { type: 'execution-denied', reason: 'not allowed' } }],
          },
        ],
      }),
    );
    const userTexts = sent.prompt.flatMap((message) =>
      message.role === 'user' ? message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [],
    );
    expect(userTexts).toEqual([
      '<tool_result><tool_name>weather</tool_name><result>{"celsius":4}</result></tool_result>',
      '<tool_result><tool_name>bash</tool_name><error>Tool execution denied: not allowed</error></tool_result>',
    ]);
  });

  it('with toolChoice required, tells the model it must call a tool', async () => {
    expect(systemPrompt(await sentToModel(callOptions({ toolChoice: { type: 'required' } })))).toContain(
      'You must call at least one tool in this answer.',
    );
  });

  it('with a specific toolChoice, offers only that tool and requires it', async () => {
    const system = systemPrompt(await sentToModel(callOptions({ tools: [readFunctionTool, lsFunctionTool], toolChoice: { type: 'tool', toolName: 'ls' } })));
    expect(system).toContain('### ls');
    expect(system).not.toContain('### read');
    expect(system).toContain('You must call the tool ls in this answer.');
  });

  it('refuses a specific toolChoice that names no function tool of the call, instead of offering no tools at all', async () => {
    const { model, inner } = textOnlyModel([['<use_tool><tool_name>read</tool_name><arguments>{"path": "a.ts"}</arguments></use_tool>']]);
    await expect(model.doStream(callOptions({ tools: [readFunctionTool, lsFunctionTool], toolChoice: { type: 'tool', toolName: 'raed' } }))).rejects.toThrow(
      'textToolProtocol: toolChoice names the tool "raed", which this call does not offer (did you mean "read"?); its function tools are read, ls',
    );
    const providerTool = { type: 'provider' as const, id: 'openai.web_search' as const, name: 'web_search', args: {} };
    await expect(
      model.doGenerate(callOptions({ tools: [readFunctionTool, providerTool], toolChoice: { type: 'tool', toolName: 'web_search' } })),
    ).rejects.toThrow('textToolProtocol: toolChoice names the tool "web_search", a provider tool, which the text tool protocol cannot offer');
    expect(inner.doStreamCalls).toEqual([]);
    expect(inner.doGenerateCalls).toEqual([]);
  });

  it("with toolChoice none, offers no tools and leaves the model's blocks as text", async () => {
    const { model, inner } = textOnlyModel([['<use_tool><tool_name>read</tool_name><arguments>{}</arguments></use_tool>']]);
    const parts = await readAll((await model.doStream(callOptions({ toolChoice: { type: 'none' } }))).stream);
    expect(systemPrompt(inner.doStreamCalls[0]!)).toBe('Be brief.');
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
  });

  it('leaves provider tools out and says so in a warning', async () => {
    const { model, inner } = textOnlyModel([['ok']]);
    const options = callOptions({ tools: [readFunctionTool, { type: 'provider', id: 'openai.web_search', name: 'web_search', args: {} }] });
    const parts = await readAll((await model.doStream(options)).stream);
    expect(systemPrompt(inner.doStreamCalls[0]!)).not.toContain('web_search');
    expect(parts[0]).toMatchObject({
      type: 'stream-start',
      warnings: [expect.objectContaining({ type: 'unsupported', feature: 'provider tool web_search' })],
    });
  });
});
