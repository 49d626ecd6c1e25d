// `loopchart/machine`: the statechart itself, for use without createAgent (your own actor, the inspector, diagrams).
// The one definition every agent shares: an actor of it gets its model and tools from bindImplementations.
export { sharedAgentMachine as agentMachine, bindImplementations, type AgentImplementations } from './shared-agent-machine.js';
export type { AgentMachine, AgentMachineEvent } from './agent-machine.js';
export type { AgentContext, AgentConfig, AgentMachineInput, RunState } from './context.js';
export { MessageHistory } from '../core/message-history.js';
export { agentImplementations } from './implementations.js';
export type { AgentRuntime } from '../core/runtime.js';
export { machineGraph, type MachineGraph, type GraphNode, type GraphEdge } from './machine-graph.js';
export { toMermaid } from './mermaid.js';
