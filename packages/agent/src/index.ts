export { startAgentServer } from './agent-server.js';
export type { AgentServer } from './agent-server.js';
export { AgentSocketError } from './agent-socket.js';
export { createAgentMetrics } from './agent-metrics.js';
export type { AgentMetrics, RequestOutcome } from './agent-metrics.js';
export { createAgentStore } from './agent-store.js';
export { queryAgentStatus } from './agent-query-status.js';
export { agentHttpRequest } from './agent-protocol.js';
