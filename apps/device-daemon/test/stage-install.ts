// Runs packaging/stage.mjs for a test or a bench: the install a device gets, laid down under a temp
// directory with every path the unit, init script and launcher name inside it (--dest / with
// --prefix and --sysconfdir there), so it can be run and measured without touching the host.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { APP_DIR } from './build-app.js';

/** The staged files, at the paths they have on this machine. */
export interface StagedInstall {
  /** `<prefix>`: the launcher in bin/, the bundle and its modules in lib/netledger-device/. */
  readonly prefix: string;
  readonly launcher: string;
  readonly libDir: string;
  /** The prebuilt `netlink` addon the daemon loads. */
  readonly addon: string;
  readonly unit: string;
  readonly initScript: string;
  /** The settings file the unit and the init script read. */
  readonly defaults: string;
}

/** Stages the build named `build` (apps/device-daemon/dist/<build>.*) under `dir`. */
export function stageInstall(opts: { build: string; dir: string }): StagedInstall {
  const prefix = join(opts.dir, 'usr');
  const sysconfdir = join(opts.dir, 'etc');
  execFileSync(
    process.execPath,
    [
      join(APP_DIR, 'packaging', 'stage.mjs'),
      '--dest',
      '/',
      '--prefix',
      prefix,
      '--sysconfdir',
      sysconfdir,
      '--node',
      process.execPath,
      '--build',
      opts.build,
    ],
    { stdio: 'pipe' },
  );
  const libDir = join(prefix, 'lib', 'netledger-device');
  return {
    prefix,
    launcher: join(prefix, 'bin', 'netledger-device'),
    libDir,
    addon: join(
      libDir,
      'node_modules',
      'netlink',
      'prebuilds',
      `linux-${process.arch}`,
      'node.napi.node',
    ),
    unit: join(prefix, 'lib', 'systemd', 'system', 'netledger-device.service'),
    initScript: join(sysconfdir, 'init.d', 'netledger-device'),
    defaults: join(sysconfdir, 'default', 'netledger-device'),
  };
}
