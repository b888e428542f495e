import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { EtcdFixture } from './etcd-fixture.js';
import { startEtcd } from './etcd-fixture.js';

const isRunning = (pidOwner: EtcdFixture, i: number): boolean => pidOwner.members[i]!.running;

describe('startEtcd', () => {
  const started: EtcdFixture[] = [];
  afterAll(async () => {
    for (const f of started) await f.stop();
  });

  it('fails, naming the package to install, when the etcd binary is missing', async () => {
    await expect(startEtcd({ bin: '/nonexistent/etcd' })).rejects.toThrow(
      'etcd not found: apt-get install -y etcd-server',
    );
  });

  it('starts one member, answers on its client URL, and removes everything on stop', async () => {
    const etcd = await startEtcd();
    started.push(etcd);
    expect(etcd.endpoints).toHaveLength(1);
    expect(etcd.endpoints[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = (await (await fetch(`${etcd.endpoints[0]}/health`)).json()) as {
      health: string;
    };
    expect(health.health).toBe('true');
    expect(await etcd.leaderIndex()).toBe(0);
    const dataDir = etcd.members[0]!.dataDir;
    expect(existsSync(dataDir)).toBe(true);
    await etcd.stop();
    expect(existsSync(dataDir)).toBe(false);
    await expect(fetch(`${etcd.endpoints[0]}/health`)).rejects.toThrow();
    await etcd.stop();
  });

  it('runs a 3-member cluster that elects a new leader when the leader is killed, and restarts it', async () => {
    const etcd = await startEtcd({ members: 3 });
    started.push(etcd);
    expect(new Set(etcd.endpoints).size).toBe(3);
    const leader = await etcd.leaderIndex();
    await etcd.kill(leader);
    expect(isRunning(etcd, leader)).toBe(false);
    const next = await etcd.leaderIndex();
    expect(next).not.toBe(leader);
    await etcd.restart(leader);
    expect(isRunning(etcd, leader)).toBe(true);
    const health = (await (await fetch(`${etcd.endpoints[leader]}/health`)).json()) as {
      health: string;
    };
    expect(health.health).toBe('true');
  });
});
