// `loopchart/ai-sdk`: an agent as the AI SDK's Agent (for useChat routes), a fetch for OpenAI-compatible servers, one that keeps a key on its server, and one that bounds an event stream's events.
export { toAISDKAgent, newMessages, type AISDKAgentOptions, type RunnableAgent } from './ai-sdk-agent.js';
export { ConversationMismatchError } from './conversation-continuity.js';
export { approvalAnswers, type ApprovalAnswer } from './approval-answers.js';
export { boundedEventStreamFetch, type BoundedEventStreamFetchOptions } from './bounded-event-stream-fetch.js';
export { jsonErrorAwareFetch } from './json-error-fetch.js';
export { keyGuardedFetch, KeyExposureError, type KeyGuardedFetchOptions } from './key-guarded-fetch.js';
