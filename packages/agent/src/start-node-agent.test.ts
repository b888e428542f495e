// startNodeAgent over a memory store on a real unix socket: what it serves, that a stop closes
// what it opened, and that a start it cannot finish leaves nothing open.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentListenError } from './agent-listen-error.js';
import { reportAgentStatus } from './report-agent-status.js';
import { startNodeAgent } from './start-node-agent.js';
import type { NodeAgentOptions } from './start-node-agent.js';

let tmp: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  tmp = await createTempDir('start-node-agent-');
});
afterEach(() => tmp.remove());

/** Options over a memory store whose close, the dispose and the log lines are recorded. */
function options(over: Partial<NodeAgentOptions> = {}) {
  const raw = createMemoryDatastore();
  const closeStore = vi.fn(() => raw.close());
  const datastore: Datastore = { ...raw, close: closeStore };
  const dispose = vi.fn(async () => undefined);
  const lines: string[] = [];
  const line = (level: string) => (msg: string) => void lines.push(`${level}: ${msg}`);
  const o: NodeAgentOptions = {
    nodename: 'node-a',
    socketPath: join(tmp.path, 'node.sock'),
    version: 'test',
    datastore,
    storeName: 'memory',
    serveWith: () => async () => ({ kind: 'fallback', reason: 'not in this test' }),
    log: {
      debug: line('debug'),
      info: line('info'),
      warning: line('warning'),
      error: line('error'),
    },
    dispose,
    ...over,
  };
  return { o, closeStore, dispose, lines };
}

describe('startNodeAgent', () => {
  it('serves its status from a synced view; stop removes the socket, closes the store, disposes', async () => {
    const { o, closeStore, dispose, lines } = options();
    const agent = await startNodeAgent(o);
    let out = '';
    const outcome = await reportAgentStatus(o.socketPath, {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
    });
    expect(outcome).toBe('ready');
    expect(JSON.parse(out)).toMatchObject({
      ready: true,
      nodename: 'node-a',
      store: 'memory',
      version: 'test',
      inFlight: 0,
    });
    expect(lines).toContain(`info: serving node node-a on ${o.socketPath} (memory, synced)`);
    expect(closeStore).not.toHaveBeenCalled();

    await agent.stop('SIGTERM');
    expect(existsSync(o.socketPath)).toBe(false);
    expect(closeStore).toHaveBeenCalledTimes(1);
    expect(dispose).toHaveBeenCalledTimes(1);
    expect(lines.slice(-2)).toEqual([
      'info: SIGTERM: no new requests; finishing 0 in flight',
      'info: stopped',
    ]);
  });

  it('a socket it cannot set up: AgentListenError naming it; the store closed and disposed', async () => {
    const notADir = join(tmp.path, 'file');
    writeFileSync(notADir, '');
    const { o, closeStore, dispose } = options({ socketPath: join(notADir, 'node.sock') });
    const started = startNodeAgent(o);
    await expect(started).rejects.toBeInstanceOf(AgentListenError);
    await expect(started).rejects.toThrow(`cannot listen on ${o.socketPath}: `);
    expect(closeStore).toHaveBeenCalledTimes(1);
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it('a metrics address in use: AgentListenError naming --metrics-listen; no socket made', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const { o, closeStore, dispose } = options({ metricsListen: { host: '127.0.0.1', port } });
      const started = startNodeAgent(o);
      await expect(started).rejects.toThrow(
        `cannot listen on --metrics-listen 127.0.0.1:${port}: listen EADDRINUSE`,
      );
      expect(existsSync(o.socketPath)).toBe(false);
      expect(closeStore).toHaveBeenCalledTimes(1);
      expect(dispose).toHaveBeenCalledTimes(1);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
