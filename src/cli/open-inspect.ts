import { WebSocket } from 'ws';
import { startInspectorRelay } from '../inspect/inspector-relay.js';
import { machineDefinition } from '../inspect/inspection-batch.js';
import { batchFrame, eventText } from '../inspect/inspection-frame.js';
import { redact } from '../secrets/redact.js';
import { agentMachine } from '../machine/agent-machine.js';
import type { SessionStore } from '../persistence/session-store.js';
import { inspectionReplay } from '../playback/inspection-replay.js';
import { openSessionRecord } from '../time-travel/session-record.js';
import type { TextSink } from './redact.js';
import { UsageError } from './usage-error.js';

/** Events per frame sent to the relay. */
const FRAME_EVENTS = 500;

/**
 * `loopchart open --inspect`: the session's recorded timeline replayed into the Stately inspector
 * through loopchart's relay (the page embeds https://stately.ai/inspect, so it needs the network).
 * The whole stream waits in the relay for the page, which gets it when it connects; the relay
 * stays up until interrupted. Resolves with the exit code.
 */
export async function replayIntoInspector(options: {
  store: SessionStore;
  sessionId: string;
  port: number;
  secrets: readonly string[];
  stderr: TextSink;
  interrupted: Promise<void>;
}): Promise<number> {
  const view = await openSessionRecord(options.store, options.sessionId);
  if (!view) throw new UsageError(`there is no session "${options.sessionId}" in this store`);
  const texts = inspectionReplay(view, machineDefinition(agentMachine.config)).map((event) =>
    redact(eventText(event), [...options.secrets]),
  );
  const relay = await startInspectorRelay({ port: options.port, replay: texts.length + 1, replayBytes: 256 * 2 ** 20 }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new UsageError(`--port: cannot listen on 127.0.0.1:${options.port} (${code})`);
    throw error;
  });
  relay.onInspectorUnavailable((reason) => options.stderr.write(`inspector: ${reason}; open the page without --inspect to step through the session offline\n`));
  const socket = new WebSocket(relay.webSocketUrl);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    for (let start = 0; start < texts.length; start += FRAME_EVENTS) socket.send(batchFrame(texts.slice(start, start + FRAME_EVENTS)));
    options.stderr.write(`inspector: open ${relay.pageUrl} to see session ${options.sessionId} (${texts.length} inspection events) in the Stately inspector; Ctrl+C stops\n`);
    await options.interrupted;
    return 0;
  } finally {
    socket.close();
    await relay.close();
  }
}
