import type { ContainerNetwork } from './container-network.js';
import { NO_NETWORK } from './container-network.js';
import { DeviceError } from './device-error.js';
import { parseDeviceJson } from './parse-device-json.js';
import { parseRunJson } from './parse-run-json.js';
import type { PoolRegistry } from './pool.js';
import type { LxcConfigScan } from './scan-lxc-config.js';
import { scanLxcConfig } from './scan-lxc-config.js';
import { isValidName } from './validate-name.js';

/** One container of a revision. A container whose files are invalid carries the error instead. */
export interface ContainerEntry {
  readonly name: string;
  readonly network: ContainerNetwork;
  readonly lxc: LxcConfigScan | undefined;
  /** Set when run.json or lxc.container.conf is invalid: the container's start is refused with it. */
  readonly error: DeviceError | undefined;
}

/** A device revision: its pool registry and its containers, by name (sorted). */
export interface Revision {
  readonly pools: PoolRegistry;
  readonly containers: ReadonlyMap<string, ContainerEntry>;
}

/** The raw files of a revision, as read from a state directory. */
export interface RevisionFiles {
  /**
   * device.json text; `undefined` when the revision has none, which refuses it (a typo'd state
   * directory must not read as "no pools"; a device without pools says so in its device.json).
   */
  readonly deviceJson: string | undefined;
  readonly containers: readonly {
    readonly name: string;
    readonly runJson: string | undefined;
    readonly lxcConfig: string | undefined;
  }[];
}

/**
 * Parses a revision. device.json errors, a missing device.json included (`InvalidDeviceJson`),
 * reject the whole revision (they throw); a container's own errors are kept on its entry so that
 * only that container is refused at start.
 */
export function parseRevision(files: RevisionFiles): Revision {
  if (files.deviceJson === undefined) {
    throw new DeviceError(
      'InvalidDeviceJson',
      'the revision has no device.json (a device without pools says so: {"network":{"pools":{}}})',
    );
  }
  const pools = parseDeviceJson(files.deviceJson);
  const containers = new Map<string, ContainerEntry>();
  const sorted = [...files.containers].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const c of sorted) containers.set(c.name, parseContainerEntry(c));
  return { pools, containers };
}

/**
 * Parses one container's files. Never throws a `DeviceError`: an invalid run.json or
 * lxc.container.conf is kept on the entry as `error` (mode none).
 */
export function parseContainerEntry(c: RevisionFiles['containers'][number]): ContainerEntry {
  try {
    if (!isValidName('container', c.name)) {
      throw new DeviceError('InvalidRunJson', `invalid container name ${JSON.stringify(c.name)}`);
    }
    const network =
      c.runJson === undefined ? NO_NETWORK : parseRunJson(c.runJson, { container: c.name });
    const lxc =
      c.lxcConfig === undefined ? undefined : scanLxcConfig(c.lxcConfig, { container: c.name });
    return { name: c.name, network, lxc, error: undefined };
  } catch (e) {
    if (!(e instanceof DeviceError)) throw e;
    return { name: c.name, network: NO_NETWORK, lxc: undefined, error: e };
  }
}
