// `loopchart/test`: the scripted model and recording, as the AI SDK has `ai/test`.
export { scriptedModel, type ScriptedModel, type ScriptedModelOptions } from './scripted-model.js';
export { scriptTurnSchema, type ScriptTurn, type ScriptedToolCall, type ScriptedError } from './script-schema.js';
export { pullStream, type PullStreamOptions } from './pull-stream.js';
export { recordModel, type ModelRecording } from './record-model.js';
