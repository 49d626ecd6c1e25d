// loopchart/redis: agent events across workers on Redis Streams, served as Server-Sent Events (needs `redis`). See docs/scale-out.md.
export { redisEventPublisher, readSessionEvents, EVENT_NOT_PUBLISHED_WARNING, REDIS_CONNECTION_WARNING, sessionEventsKey, type EventPublisher, type EventPublisherOptions, type ReadEventsOptions, type RedisClient } from './event-stream.js';
export { serveSessionEvents, formatSseMessage, type ServeSessionEventsOptions } from './sse.js';
export { keptText, encodeStreamedEvent, decodeStreamedEvent, EpochFilter, type StreamedEvent } from './streamed-event.js';
