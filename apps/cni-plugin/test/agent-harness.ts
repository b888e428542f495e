// The end-to-end tests' two ways of running netledger-ipam beside netledger-node, the node agent
// (docs/node-agent.md): through a running agent, and with the agent stopped (the static client then
// runs every command with its Node.js fallback). The test's configs name a socket of its own.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startNodeAgent } from '@netledger/testkit';
import type { AgentStatus, NodeAgentFixture } from '@netledger/testkit';
import { BIN_DIR, PLUGIN } from './exec-harness.js';

/**
 * `running`: the agent serves the plugin's requests. `stopped`: it ran, then was killed with
 * `kill -9`, leaving its socket behind: the static client finds nobody listening and runs its
 * Node.js fallback in netledger-ipam.d/.
 */
export type AgentMode = 'running' | 'stopped';

/** Options of {@link setUpAgent}. */
export interface AgentSetupOptions {
  readonly mode: AgentMode;
  /** The CNI bin directory to install netledger-ipam into. */
  readonly binDir: string;
  readonly socket: string;
  readonly nodename: string;
  /** The agent's store (NETLEDGER_DATASTORE_PATH). */
  readonly datastorePath: string;
  /** Extra arguments of `netledger-ipam install` (--conf-dir, --network, ...). */
  readonly installArgs?: readonly string[];
}

/** What {@link setUpAgent} set up. */
export interface AgentSetup {
  /** The running agent (mode `running`). */
  readonly agent: NodeAgentFixture | undefined;
  /** The agent's status (mode `running`), or undefined. */
  status(): Promise<AgentStatus | undefined>;
  stop(): Promise<void>;
}

/**
 * Installs netledger-ipam into `binDir` (`--agent-socket socket` for an example conflist), and
 * starts netledger-node on `datastorePath` for `nodename`; in mode `stopped` kills it with SIGKILL
 * once it has bound its socket. Throws when the install or the agent's start fails.
 */
export async function setUpAgent(o: AgentSetupOptions): Promise<AgentSetup> {
  const installed = spawnSync(
    PLUGIN,
    ['install', '--bin-dir', o.binDir, '--agent-socket', o.socket, ...(o.installArgs ?? [])],
    { encoding: 'utf8' },
  );
  if (installed.status !== 0) throw new Error(`install failed: ${installed.stderr}`);
  const agent = await startNodeAgent({
    bin: join(BIN_DIR, 'netledger-node'),
    nodename: o.nodename,
    socket: o.socket,
    env: { NETLEDGER_DATASTORE_PATH: o.datastorePath },
  });
  if (o.mode === 'stopped') await agent.stop('SIGKILL');
  const running = o.mode === 'running' ? agent : undefined;
  return {
    agent: running,
    status: async () => running?.status(),
    stop: async () => void (await agent.stop('SIGKILL')),
  };
}

/** How many requests the agent answered for `command` (any client). */
export function answered(status: AgentStatus, command: string): number {
  let n = 0;
  for (const [labels, count] of Object.entries(status.requests)) {
    if (labels.startsWith(`command="${command}",`) && labels.endsWith('outcome="answered"'))
      n += count;
  }
  return n;
}
