import { McpMessageTooLargeError } from './message-too-large.js';

type Fetch = typeof globalThis.fetch;

/**
 * A `fetch` for an MCP HTTP transport whose response bodies are bounded per
 * message: a JSON body (one message, or a batch) may be `maxMessageBytes`
 * long, and so may each event of an event stream (the bytes between two
 * blank lines). Past the bound the body fails with
 * {@link McpMessageTooLargeError}, having held no more than the bound, and
 * `onTooLarge` is called (to close the connection: a request waiting on an
 * event stream would otherwise wait for ever).
 *
 * @example
 * ```ts
 * const client = await createMCPClient({ transport: { type: 'http', url, fetch: boundedFetch(64 * 2 ** 20, (error) => void client.close()) } });
 * ```
 */
export function boundedFetch(maxMessageBytes: number, onTooLarge: (error: McpMessageTooLargeError) => void, base: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null) return response;
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const body = response.body.pipeThrough(boundedBody(maxMessageBytes, eventStream, onTooLarge));
    const bounded = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}

const LF = 0x0a;
const CR = 0x0d;

/** Counts the bytes of the current message (the whole body, or the current event of an event stream) and fails past the bound. */
function boundedBody(maxMessageBytes: number, eventStream: boolean, onTooLarge: (error: McpMessageTooLargeError) => void): TransformStream<Uint8Array, Uint8Array> {
  let messageBytes = 0;
  /** The line ends just read, in a row (`\r\n` counts as one): two in a row end an event. */
  let lineEnds = 0;
  let lastWasCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (!eventStream) {
        messageBytes += chunk.length;
      } else {
        for (const byte of chunk) {
          if (byte === LF || byte === CR) {
            if (!(byte === LF && lastWasCr)) lineEnds++;
            lastWasCr = byte === CR;
            if (lineEnds >= 2) messageBytes = 0;
            continue;
          }
          lineEnds = 0;
          lastWasCr = false;
          messageBytes++;
          if (messageBytes > maxMessageBytes) break;
        }
      }
      if (messageBytes > maxMessageBytes) {
        const error = new McpMessageTooLargeError(maxMessageBytes);
        controller.error(error);
        onTooLarge(error);
        return;
      }
      controller.enqueue(chunk);
    },
  });
}
