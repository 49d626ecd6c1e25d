import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { functionOption } from '../core/function-option.js';
import { isStreamingRequest } from './streaming-request.js';
export interface BoundedEventStreamFetchOptions {
  /** The fetch that sends each request. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** The most bytes one event of an event stream may take, up to the blank line that ends it. Default 32 MiB. */
  maxEventBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * A `fetch` for AI SDK providers that bounds what one server-sent event may
 * hold. The providers' event-stream parser keeps an event in memory until the
 * blank line that ends it, without a limit: a server that sends one endless
 * line, or data lines without a blank line, grows the process until it dies.
 * This `fetch` cuts such a response off once an event passes `maxEventBytes`
 * (default 32 MiB, room for an image in one event), with an error that says
 * so; the provider reports it as the call's failure. It bounds every
 * `text/event-stream` response (the type in any case), and every successful
 * answer to a streaming request whatever its type, or none: the providers
 * parse any body they asked a stream of as events. Any other response is
 * passed on as it is.
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai';
 * import { boundedEventStreamFetch, jsonErrorAwareFetch } from 'loopchart/ai-sdk';
 *
 * const openai = createOpenAI({ apiKey, fetch: jsonErrorAwareFetch(boundedEventStreamFetch()) });
 */
export function boundedEventStreamFetch(options: BoundedEventStreamFetchOptions = {}): typeof fetch {
  parseOptions('boundedEventStreamFetch', z.strictObject({ fetch: functionOption<typeof fetch>().optional(), maxEventBytes: z.unknown().optional() }), options);
  const maxEventBytes = options.maxEventBytes ?? 32 * 1024 * 1024;
  if (!Number.isSafeInteger(maxEventBytes) || maxEventBytes < 1) throw new TypeError(`maxEventBytes must be a positive integer, got ${maxEventBytes}`);
  const send: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  return async (input, init) => {
    const response = await send(input, init);
    if (response.body === null) return response;
    const eventStream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    if (!eventStream && !(response.ok && isStreamingRequest(input, init))) return response;
    return new Response(response.body.pipeThrough(eventBound(maxEventBytes)), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Passes the bytes on, and errors once an event (the bytes up to a blank line; LF, CRLF or CR end a line) passes `maxEventBytes`. */
function eventBound(maxEventBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  let afterCR = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (const byte of chunk) {
        if (byte === LF && afterCR) {
          afterCR = false;
          continue;
        }
        if (byte === LF || byte === CR) {
          afterCR = byte === CR;
          if (lineBytes === 0) {
            eventBytes = 0;
            continue;
          }
          lineBytes = 0;
        } else {
          afterCR = false;
          lineBytes++;
        }
        if (++eventBytes > maxEventBytes) {
          controller.error(
            new Error(`The server sent an event of more than ${maxEventBytes} bytes (an event ends at a blank line): the stream is cut off there. Raise maxEventBytes if the provider sends events that large`),
          );
          return;
        }
      }
      controller.enqueue(chunk);
    },
  });
}
