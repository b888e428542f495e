// The end-to-end tests' three ways of running netledger-ipam beside netledger-node, the node agent
// (docs/node-agent.md): through a running agent, with the agent stopped (the static client then
// runs every command with its Node.js fallback), and with the agent hung (SIGSTOP: the client
// gives up on an answer after agent_answer_timeout, code 11). The test's configs name a socket of
// their own.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startNodeAgent } from '@netledger/testkit';
import type { AgentStatus, NodeAgentFixture } from '@netledger/testkit';
import { vi } from 'vitest';
import { BIN_DIR, PLUGIN } from './exec-harness.js';

/**
 * `running`: the agent serves the plugin's requests. `stopped`: it ran, then was killed with
 * `kill -9`, leaving its socket behind: the static client finds nobody listening and runs its
 * Node.js fallback in netledger-ipam.d/. `paused`: it is stopped with SIGSTOP once it serves, so
 * its socket still takes connections (the kernel queues them) and nothing answers: the client
 * sends its request and fails with code 11 after `agent_answer_timeout`, until
 * {@link AgentSetup.resume} continues the agent (SIGCONT).
 */
export type AgentMode = 'running' | 'stopped' | 'paused';

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
  /** The agent's process (modes `running` and `paused`). */
  readonly agent: NodeAgentFixture | undefined;
  /**
   * The agent's status (mode `running`, and `paused` once resumed), or undefined (mode
   * `stopped`). Throws while the agent is paused: nothing would answer.
   */
  status(): Promise<AgentStatus | undefined>;
  /** Continues a paused agent (SIGCONT); a no-op in the other modes or once resumed. */
  resume(): void;
  /** Resumes the agent if it is paused, then kills it (SIGKILL); safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Installs netledger-ipam into `binDir` (`--agent-socket socket` for an example conflist), and
 * starts netledger-node on `datastorePath` for `nodename`; in mode `stopped` kills it with SIGKILL
 * once it has bound its socket, in mode `paused` stops it with SIGSTOP once it serves. Throws when
 * the install or the agent's start fails.
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
  let paused = false;
  if (o.mode === 'paused') {
    process.kill(agent.pid, 'SIGSTOP');
    paused = true;
  }
  const resume = (): void => {
    if (!paused) return;
    process.kill(agent.pid, 'SIGCONT');
    paused = false;
  };
  const serving = o.mode === 'stopped' ? undefined : agent;
  return {
    agent: serving,
    status: async () => {
      if (paused) throw new Error('netledger-node is paused (SIGSTOP): resume() it first');
      return serving?.status();
    },
    resume,
    stop: async () => {
      resume();
      await agent.stop('SIGKILL');
    },
  };
}

/** How many `command` requests ended with an outcome matching `outcome` (any client). */
function counted(status: AgentStatus, command: string, outcome: RegExp): number {
  let n = 0;
  for (const [labels, count] of Object.entries(status.requests)) {
    const label = /outcome="([^"]*)"/.exec(labels)?.[1];
    if (labels.startsWith(`command="${command}",`) && label !== undefined && outcome.test(label))
      n += count;
  }
  return n;
}

/** How many requests the agent answered for `command` (any client). */
export function answered(status: AgentStatus, command: string): number {
  return counted(status, command, /^answered$/);
}

/**
 * How many `command` requests the agent dropped (`not-run`: the client left before the host lock)
 * or rolled back (`abandoned`) because their client went away.
 */
export function abandoned(status: AgentStatus, command: string): number {
  return counted(status, command, /^(abandoned|not-run)$/);
}

/**
 * Polls the agent's status (every 50 ms, up to 30 s) until `check` passes on it (an assertion
 * that throws until it does) and returns that status; after 30 s rejects with the last failure
 * (check's, or that the agent is paused or not running).
 */
export async function waitForStatus(
  setup: AgentSetup,
  check: (status: AgentStatus) => void,
): Promise<AgentStatus> {
  return vi.waitFor(
    async () => {
      const status = await setup.status();
      if (status === undefined) throw new Error('netledger-node is not running');
      check(status);
      return status;
    },
    { timeout: 30_000, interval: 50 },
  );
}
