// @netledger/cni/agent: the node agent's side of the plugin's requests (netledger-node): its
// HTTP endpoint on a private unix socket, its counters and what it mirrors. Apart from the main entry, so the plugin and the library's users load none
// of it.

export { startAgentServer } from './agent/agent-server.js';
export type { AgentServer, AgentServerOptions } from './agent/agent-server.js';
export { AgentSocketError } from './agent/agent-socket.js';
export { createAgentMetrics } from './agent/agent-metrics.js';
export type { AgentMetrics, RequestOutcome } from './agent/agent-metrics.js';
export { createAgentStore } from './agent/agent-store.js';
export type { AgentStoreOptions } from './agent/agent-store.js';
export { queryAgentStatus } from './agent/query-status.js';
export type { AgentStatusQuery } from './agent/query-status.js';
export { appendRequestLog } from './agent/request-log.js';
