import type { ErrorBody } from './device-error.js';
import type { LxcNetworkConfig } from './render-lxc-network.js';
import type { NatBackend } from './nat-driver.js';
import type { LeaseView, PoolView } from './views.js';

/** How to apply a revision. */
export interface ApplyOptions {
  /**
   * Apply it even when it releases leases of running containers or deletes bridges that have
   * ports (otherwise refused with `DropsInUse`, changing nothing). Default false.
   */
  readonly force?: boolean;
}

/** The result of applying a revision. */
export interface ApplyReport {
  readonly pools: readonly PoolView[];
  readonly containers: readonly {
    readonly name: string;
    readonly mode: string;
    /** Why this container's starts will be refused (its own run.json or lxc config). */
    readonly error?: ErrorBody;
  }[];
  readonly released: readonly LeaseView[];
  readonly natBackend: NatBackend | undefined;
  readonly warnings: readonly string[];
}

/** What a boot did: which revision is in force, and the refused one if the offered revision was. */
export interface BootReport {
  /** `offered`: the revision given; `last-good`: the persisted one (the offered one was refused or none was given); `none`. */
  readonly inForce: 'offered' | 'last-good' | 'none';
  readonly refused: ErrorBody | undefined;
}

/** The result of a start: the container's leases and the LXC config to inject. */
export interface StartReport {
  readonly container: string;
  readonly leases: readonly LeaseView[];
  readonly config: LxcNetworkConfig | undefined;
  /** `config` as lxc.container.conf lines ('' for a container outside IPAM). */
  readonly lxc: string;
}

/** The daemon's health: it serves; whether a revision is in force; a refused revision, if any. */
export interface HealthReport {
  readonly ok: true;
  readonly revision: boolean;
  readonly leases: number;
  readonly running: readonly string[];
  /** Present while the last revision offered is refused: why (the previous one stays in force). */
  readonly refused?: ErrorBody;
}
