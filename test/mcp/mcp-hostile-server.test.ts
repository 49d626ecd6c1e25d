import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../../src/index.js';
import { connectMcpTools, type McpTools } from '../../src/mcp/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { misbehavingFixture, waitUntilGone, type MisbehavingFixture, type MisbehavingMode } from '../fixtures/mcp/stdio-fixture.js';
import { toolOutputs } from '../support/history.js';

const fixtures: MisbehavingFixture[] = [];
const opened: McpTools[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((mcp) => mcp.close().catch(() => {})));
  for (const fixture of fixtures.splice(0)) {
    const pid = fixture.pid();
    if (pid !== undefined) await waitUntilGone(pid);
    await fixture.remove();
  }
});

async function misbehaving(mode: MisbehavingMode): Promise<MisbehavingFixture> {
  const fixture = await misbehavingFixture(mode);
  fixtures.push(fixture);
  return fixture;
}

async function connect(...args: Parameters<typeof connectMcpTools>): Promise<McpTools> {
  const mcp = await connectMcpTools(...args);
  opened.push(mcp);
  return mcp;
}

describe('a tool result the server marks as an error', () => {
  it('is an error result for the run (the tool-result event, the model\'s answer), with the server\'s text', async () => {
    const fixture = await misbehaving('error-result');
    const mcp = await connect({ mcpServers: { files: fixture.entry } }, { stderr: 'ignore' });
    const model = scriptedModel([{ toolCalls: [{ id: 'call-1', name: 'mcp__files__fail', input: {} }] }, { text: 'Done.' }]);
    const agent = createAgent({ model, tools: mcp.tools });
    const events: AgentEvent[] = [];
    agent.events$.subscribe((event) => events.push(event));

    const result = await agent.run('Read the file.');
    await agent.dispose();

    expect(result.outcome).toBe('completed');
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ toolName: 'mcp__files__fail', isError: true });
    expect(toolOutputs(result.messages)['call-1']).toEqual({ type: 'error-text', value: 'file not found' });
  });
});
