/**
 * `prepareToolsOnce`: the provider's tool list is prepared once per tool (its
 * JSON Schema converted once), also across tool sets that share the tool, and
 * again whenever what the provider is sent changes.
 */
import { jsonSchema, tool, type Tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { prepareToolsOnce } from '../src/model-call/direct-tools.js';

/** A schema that counts how often its JSON Schema is read (what `prepareTools` does once per tool it converts). */
function countingSchema() {
  const counter = { conversions: 0 };
  const inner = jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false });
  const schema = Object.create(inner, {
    jsonSchema: {
      get() {
        counter.conversions++;
        return inner.jsonSchema;
      },
    },
  }) as typeof inner;
  return { schema, counter };
}

function echoTool() {
  const { schema, counter } = countingSchema();
  return { echo: tool({ description: 'Echoes the text.', inputSchema: schema, execute: async ({ text }) => text }), counter };
}

describe('prepareToolsOnce', () => {
  it('converts a shared tool’s schema once, though every agent builds its own tool set around it', async () => {
    const { echo, counter } = echoTool();
    const first = await prepareToolsOnce({ echo });
    const second = await prepareToolsOnce({ echo });
    const third = await prepareToolsOnce({ ...{ echo } });
    expect(counter.conversions).toBe(1);
    expect(second).toStrictEqual(first);
    expect(third).toStrictEqual(first);
    expect(second).not.toBe(first);
    expect(first).toEqual([{ type: 'function', name: 'echo', description: 'Echoes the text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } }]);
  });

  it('prepares a tool again under another name, and keeps each name’s entry', async () => {
    const { echo, counter } = echoTool();
    expect((await prepareToolsOnce({ echo }))?.map((entry) => entry.name)).toEqual(['echo']);
    expect((await prepareToolsOnce({ repeat: echo }))?.map((entry) => entry.name)).toEqual(['repeat']);
    expect(counter.conversions).toBe(2);
    await prepareToolsOnce({ echo });
    await prepareToolsOnce({ repeat: echo });
    expect(counter.conversions).toBe(2);
  });

  it('sends a tool changed in place as it is now', async () => {
    const { echo, counter } = echoTool();
    await prepareToolsOnce({ echo });
    echo.description = 'Repeats the text.';
    expect((await prepareToolsOnce({ echo }))?.[0]).toMatchObject({ description: 'Repeats the text.' });
    const { schema, counter: replaced } = countingSchema();
    echo.inputSchema = schema;
    await prepareToolsOnce({ echo });
    expect(counter.conversions).toBe(2);
    // The new schema is the one converted, not the old one's entry reused.
    expect(replaced.conversions).toBe(1);
  });

  it('never caches a tool whose description is a function', async () => {
    const { schema, counter } = countingSchema();
    let calls = 0;
    const described = { description: () => `call ${++calls}`, inputSchema: schema, execute: async () => 'ok' } as unknown as Tool;
    const sets: ToolSet[] = [{ described }, { described }];
    expect((await prepareToolsOnce(sets[0]!))?.[0]).toMatchObject({ description: 'call 1' });
    expect((await prepareToolsOnce(sets[1]!))?.[0]).toMatchObject({ description: 'call 2' });
    expect(counter.conversions).toBe(2);
  });

  it('prepares a set with one new tool in the set’s order', async () => {
    const { echo } = echoTool();
    const { echo: other, counter } = echoTool();
    await prepareToolsOnce({ echo });
    expect((await prepareToolsOnce({ other, echo }))?.map((entry) => entry.name)).toEqual(['other', 'echo']);
    await prepareToolsOnce({ echo, other });
    expect(counter.conversions).toBe(1);
  });
});
