import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { BoundedStdioTransport } from '../../src/mcp/stdio-transport.js';
import { processIsGone, waitUntilGone } from '../fixtures/mcp/stdio-fixture.js';

it.runIf(process.platform !== 'win32')('close() stops what a server started after the server itself exited', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lc-review-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const pidFile = path.join(dir, 'child-pid');
  const script = `const { spawn } = require('node:child_process'); const fs = require('node:fs');
    const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { stdio: 'ignore' });
    fs.writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); process.exit(1);`;
  const transport = new BoundedStdioTransport({ command: process.execPath, args: ['-e', script], stderr: 'ignore', maxMessageBytes: 1 << 20 });
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  await closed;
  const child = Number(readFileSync(pidFile, 'utf8'));
  expect(existsSync(pidFile)).toBe(true);
  try {
    await transport.close();
    expect(processIsGone(child)).toBe(true);
  } finally {
    if (!processIsGone(child)) process.kill(child, 'SIGKILL');
    await waitUntilGone(child);
  }
});
