// The systemd unit (packaging/netledger-device.service) as packaging/stage.mjs installs it, checked
// by systemd's own tools: `systemd-analyze verify` (syntax, every setting understood, the
// executables it names exist) and `systemd-analyze security --offline` (its sandbox). Needs
// systemd-analyze (Debian: systemd); no root, no running systemd.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPath } from '@netledger/testkit';
import { buildApp } from './build-app.js';
import type { StagedInstall } from './stage-install.js';
import { stageInstall } from './stage-install.js';

let tmp: string;
let install: StagedInstall;

beforeAll(() => {
  if (!onPath('systemd-analyze'))
    throw new Error('missing systemd-analyze: apt-get install -y systemd');
  buildApp('systemd-unit-test');
  tmp = mkdtempSync(join(tmpdir(), 'nl-unit-'));
  install = stageInstall({ build: 'systemd-unit-test', dir: tmp });
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** What `systemd-analyze verify` says about `unit`: its exit status and the lines naming it. */
function verify(unit: string): { status: number | null; problems: string[] } {
  const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  const name = unit.slice(unit.lastIndexOf('/') + 1);
  const problems = `${r.stdout}${r.stderr}`
    .split('\n')
    .filter((l) => l.includes(unit) || l.includes(name));
  return { status: r.status, problems };
}

describe('netledger-device.service', () => {
  it('passes systemd-analyze verify with nothing to say', () => {
    expect(verify(install.unit)).toEqual({ status: 0, problems: [] });
  });

  it('the check catches a setting systemd ignores (a copy with ProtectSystem=bogus)', () => {
    const bad = join(tmp, 'bad.service');
    copyFileSync(install.unit, bad);
    writeFileSync(
      bad,
      readFileSync(bad, 'utf8').replace(/^ProtectSystem=.*$/m, 'ProtectSystem=bogus'),
    );
    expect(verify(bad).problems).toEqual([
      expect.stringContaining('Failed to parse protect system value, ignoring: bogus'),
    ]);
  });

  it('runs the staged launcher with the same data directory and socket as the init script', () => {
    const unit = readFileSync(install.unit, 'utf8');
    expect(unit).toMatch(
      new RegExp(
        `^ExecStart=${install.launcher} serve --data-dir /var/lib/netledger-device --socket /run/netledger/device.sock \\$NETLEDGER_DEVICE_OPTS$`,
        'm',
      ),
    );
    expect(unit).toContain(`EnvironmentFile=-${install.defaults}`);
    const script = readFileSync(install.initScript, 'utf8');
    expect(script).toContain('NETLEDGER_DEVICE_DATA_DIR=/var/lib/netledger-device\n');
    expect(script).toContain('NETLEDGER_DEVICE_SOCKET=/run/netledger/device.sock\n');
  });

  it('is sandboxed: systemd-analyze security rates its exposure 3.0 or lower', () => {
    const r = spawnSync('systemd-analyze', ['security', '--offline=true', install.unit], {
      encoding: 'utf8',
    });
    const m = /Overall exposure level for netledger-device\.service: (\d+\.\d)/.exec(r.stdout);
    expect(m, r.stdout + r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(3);
  });
});
