import { WebSocket } from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, startCli, waitFor } from './support/cli-process.js';
import { tempDir, writeScript } from './support/scripts.js';

beforeAll(() => buildCli(), 60_000);

describe('loopchart run --inspect', () => {
  it('prints the inspector page on stderr, serves it and its events on 127.0.0.1 while the run lasts, and the run completes', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, 'slow.json', {
      prompt: 'List the files.',
      turns: [{ delayMs: 700, toolCalls: [{ name: 'ls', input: {} }] }, { text: 'Nothing there.' }],
    });
    const cli = startCli(['run', script, '--inspect', '--json']);
    await waitFor(() => /inspector: open http:\/\/127\.0\.0\.1:\d+ /.test(cli.stderr), 'the inspector page on stderr');
    const pageUrl = /inspector: open (http:\/\/127\.0\.0\.1:\d+) /.exec(cli.stderr)![1]!;

    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>loopchart · Stately inspector</title>');
    const webSocketUrl = pageUrl.replace('http:', 'ws:');
    expect(html).toContain(JSON.stringify(webSocketUrl));

    const received: Array<{ type?: string }> = [];
    const socket = new WebSocket(webSocketUrl);
    socket.on('message', (data: Buffer) => received.push(JSON.parse(data.toString()) as { type?: string }));
    await waitFor(() => received.some((event) => event.type === '@xstate.snapshot'), 'an inspection snapshot from the relay');

    const { code, stdout, stderr } = await cli.done;
    socket.close();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'completed', text: 'Nothing there.' });
    expect(stderr).toMatch(/^inspector: open http:\/\/127\.0\.0\.1:\d+ to watch the run in the Stately inspector \(it closes when the run ends\)\n$/);
    expect(received.map((event) => event.type)).toEqual(expect.arrayContaining(['@xstate.actor', '@xstate.event', '@xstate.snapshot']));
    await expect(fetch(pageUrl)).rejects.toThrow();
  });
});
