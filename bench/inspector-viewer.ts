/**
 * The relay's page, in a process of its own as the browser is: it connects to
 * the relay's WebSocket URL (argv[2]) from the relay's origin (argv[3]), says
 * it is there, and reads every frame as the page does (batch frames split,
 * each event parsed, back-references resolved). It writes `connected`, then one line `ended <events>
 * <frames>` each time the root agent's final `idle` snapshot arrives, so that
 * the benchmark knows when the viewer has the whole run without paying for
 * the viewer's parsing, which is the browser's CPU, not the agent's.
 */
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket } from 'ws';
import { frameEvents } from '../src/inspect/inspection-frame.js';
import { stateName } from '../src/machine/state-name.js';

const [url, origin] = process.argv.slice(2);
if (!url || !origin) throw new Error('usage: inspector-viewer.ts <webSocketUrl> <origin>');

let events = 0;
let frames = 0;
const socket = new WebSocket(url, { headers: { origin } });
socket.on('open', () => {
  socket.send(JSON.stringify({ type: '@loopchart.page', state: 'connected' }));
  process.stdout.write('connected\n');
});
socket.on('message', (data: Buffer) => {
  frames++;
  for (const event of frameEvents(data.toString()) as StatelyInspectionEvent[]) {
    events++;
    const isRootIdle =
      event.type === '@xstate.snapshot' &&
      event.rootId === event.sessionId &&
      event.event.type !== 'xstate.init' &&
      // The root actor is the agent's session chart: idle again once the run's end is delivered.
      stateName((event.snapshot as unknown as { value: unknown }).value) === 'holding.live.idle';
    if (isRootIdle) process.stdout.write(`ended ${events} ${frames}\n`);
  }
});
socket.on('close', () => process.exit(0));
socket.on('error', (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
