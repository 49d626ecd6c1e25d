// `loopchart/ai-sdk`: an agent as the AI SDK's Agent (for useChat routes), and a fetch for OpenAI-compatible servers.
export { toAISDKAgent, newMessages, type AISDKAgentOptions, type RunnableAgent } from './ai-sdk-agent.js';
export { approvalAnswers, type ApprovalAnswer } from './approval-answers.js';
export { jsonErrorAwareFetch } from './json-error-fetch.js';
