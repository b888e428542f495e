import { queryAgentStatus } from './agent-query-status.js';

/** What `netledger-node status` found on the socket. */
export type AgentStatusOutcome = 'ready' | 'not-ready' | 'none' | 'denied';

/**
 * `netledger-node status`: asks the agent on `socketPath` for its status and says what it found:
 * the status document as one JSON line on `out.stdout` (`ready` when it serves from a synced view,
 * else `not-ready`), or on `out.stderr` why there is none, naming the socket: `denied` (this user
 * may not use it: only the agent's user, root, may) or `none` (nothing answers). Never rejects.
 */
export async function reportAgentStatus(
  socketPath: string,
  out: { readonly stdout: (text: string) => void; readonly stderr: (text: string) => void },
): Promise<AgentStatusOutcome> {
  const answer = await queryAgentStatus(socketPath);
  switch (answer.kind) {
    case 'denied':
      out.stderr(
        `netledger-node: permission denied on ${socketPath} (${answer.reason}): only the agent's user (root) may ask it\n`,
      );
      return 'denied';
    case 'none':
      out.stderr(`netledger-node: no agent answers on ${socketPath} (${answer.reason})\n`);
      return 'none';
    case 'status':
      out.stdout(`${JSON.stringify(answer.status)}\n`);
      return answer.status['ready'] === true ? 'ready' : 'not-ready';
  }
}
