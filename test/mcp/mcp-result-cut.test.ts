import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, fileStore } from '../../src/index.js';
import { connectMcpTools } from '../../src/mcp/index.js';
import { scriptedModel } from '../../src/test/index.js';
import { startFixtureHttpServer, type FixtureHttpServer } from '../fixtures/mcp/http-server.js';
import { tempDir } from '../cli/support/scripts.js';

let http: FixtureHttpServer;
beforeAll(async () => {
  http = await startFixtureHttpServer({ largeOutput: true });
});
afterAll(() => http.close());

const TEXT_BYTES = 8 * 2 ** 20;
const IMAGE_BYTES = 2 ** 20;

/** The bytes of every file under `dir`. */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

describe('an MCP tool result far over the truncation limit', () => {
  it('reaches the model cut to the limit, its image left out and named, and the session record stays small', async () => {
    const mcp = await connectMcpTools({ mcpServers: { fixture: { type: 'http', url: http.url } } });
    try {
      const model = scriptedModel([{ toolCalls: [{ id: 'call-1', name: 'mcp__fixture__large', input: { textBytes: TEXT_BYTES, imageBytes: IMAGE_BYTES } }] }, { text: 'Done.' }]);
      const sessions = await tempDir('loopchart-mcp-cut-');
      const agent = createAgent({ model, tools: mcp.tools, store: fileStore(sessions), sessionId: 'large-result' });
      const result = await agent.run('Fetch the large result.');
      await agent.dispose();
      expect(result.outcome).toBe('completed');

      const request = JSON.stringify(model.calls[1]!.prompt);
      // The default limit is 50 KB and 2,000 lines; the whole result is 8 MB of text and a 1.3 MB base64 image.
      expect(request.length).toBeLessThan(100 * 1024);
      expect(request).toContain('line 1\\n');
      expect(request).toMatch(/cut here \(lines 1001-\d+\) of \d+ lines \(8\.0 MB\)/);
      expect(request).toContain('[… image/png file (1.3 MB) left out: this tool result is over the 50.0 KB or 2000 lines the model is shown of it …]');
      expect(await bytesUnder(sessions)).toBeLessThan(200 * 1024);
    } finally {
      await mcp.close();
    }
  });
});
