// `loopchart/inspect`: the Stately inspector, safely (secrets redacted, history summarised), and its local relay.
export {
  agentInspectorOptions,
  createBrowserInspector,
  createSkyInspector,
  createWebSocketInspector,
  type SafeInspectorOptions,
  type AgentInspector,
  type WebSocketInspectorOptions,
} from './inspectors.js';
export { INSPECTION_EVENTS_DROPPED_WARNING, type OnDropped } from './dropped-events.js';
export { startInspectorRelay, type InspectorRelay, type InspectorRelayOptions } from './inspector-relay.js';
export { redactSecrets, sanitizeContext, sanitizeEvent, summariseHistory } from './sanitize.js';
