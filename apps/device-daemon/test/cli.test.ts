// The offline verbs of the bundled executable: exit codes and output, no daemon and no root.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, bundleApp } from './netns-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'nl-cli-'));
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BUNDLE, ...args], { encoding: 'utf8' });

function state(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const device = JSON.stringify({
  network: {
    pools: {
      internal: {
        type: 'bridge',
        bridge: 'pvbr0',
        subnet: '10.0.5.0/24',
        gateway: '10.0.5.1',
        nat: true,
      },
    },
  },
});

beforeAll(() => bundleApp('netledger-device-cli-test'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('netledger-device (offline verbs)', () => {
  it('check prints what a valid revision would set up and exits 0', () => {
    const r = cli(
      'check',
      '--state',
      state('ok', { 'device.json': device, 'app/run.json': '{"network":{"pool":"internal"}}' }),
    );
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; containers: { lxc: string }[] };
    expect(report.ok).toBe(true);
    expect(report.containers[0]?.lxc).toContain('lxc.net.0.ipv4.address = 10.0.5.2/24');
  });

  it.each([
    [
      'an unknown pool',
      { 'device.json': device, 'app/run.json': '{"network":{"pool":"nope"}}' },
      'UnknownPool',
    ],
    [
      'a macvlan pool',
      { 'device.json': device.replace('"bridge","bridge"', '"macvlan","bridge"') },
      'UnsupportedPoolType',
    ],
  ])('check exits 1 for %s', (name, files, code) => {
    const r = cli('check', '--state', state(name.replaceAll(' ', '-'), files));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`"code": "${code}"`);
  });

  it.each([
    ['no device.json', { 'app/run.json': '{}' }, 'the revision has no device.json'],
    ['an empty device.json', { 'device.json': '', 'app/run.json': '{}' }, 'device.json is empty'],
    [
      'a device.json with a duplicate key',
      { 'device.json': '{"network":{"pools":{}},"network":{}}' },
      'key \\"network\\" appears twice at the top level',
    ],
  ])('check exits 1 for %s, never reading it as "no pools"', (name, files, message) => {
    const r = cli('check', '--state', state(name.replaceAll(' ', '-'), files));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('"code": "InvalidDeviceJson"');
    expect(r.stdout).toContain(message);
  });

  it('render-args turns PV_NETWORK_* into a network block', () => {
    writeFileSync(
      join(dir, 'args.json'),
      JSON.stringify({ PV_NETWORK_POOL: 'internal', PV_NETWORK_IP: '10.0.5.50' }),
    );
    const r = cli('render-args', '--args', join(dir, 'args.json'), '--name', 'app');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      network: {
        mode: 'pool',
        pool: 'internal',
        hostname: 'app',
        interfaces: [{ name: 'eth0', ipv4_address: '10.0.5.50' }],
      },
    });
  });

  it('render-args refuses an inconsistent set with one clear line and exit 1', () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ PV_NETWORK_IP: '10.0.5.50' }));
    const r = cli('render-args', '--args', join(dir, 'bad.json'));
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('InvalidTemplateArgs');
  });

  it.each([[['bogus']], [['start']], [['check']], [['serve']], [['leases', '--nope']]])(
    'exits 2 on usage error %j',
    (args) => {
      expect(cli(...args).status).toBe(2);
    },
  );

  it('exits 3 when the daemon is unreachable', () => {
    const r = cli('leases', '--socket', join(dir, 'missing.sock'));
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('DaemonUnavailable');
  });
});
