// @netledger/cni/agent: serving the plugin's requests in a long-lived process (netledger-node, with
// @netledger/agent's endpoint): the same plugin run with the process's store and host lock, what
// is not its to serve sent back, an undelivered ADD taken back. Apart from the main entry, so the
// plugin and the library's users load none of it.

export { serveAgentRequest } from './agent/serve-agent-request.js';
export { storeIdentity } from './agent/store-identity.js';
export { appendRequestLog } from './agent/request-log.js';
