export { startAgentServer } from './agent-server.js';
export type { AgentServer } from './agent-server.js';
export type { RequestOutcome } from './agent-metrics.js';
export { createAgentStore } from './agent-store.js';
export { reportAgentStatus } from './report-agent-status.js';
export { agentHttpRequest } from './agent-protocol.js';
export { startNodeAgent } from './start-node-agent.js';
export { AgentListenError } from './agent-listen-error.js';
