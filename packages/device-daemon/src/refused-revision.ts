import type { ErrorBody } from './device-error.js';
import { DeviceError, toErrorBody } from './device-error.js';
import { samePool } from './diff-pools.js';
import { parsePool, poolConflict, readPoolDefinitions } from './parse-device-json.js';
import type { Pool } from './pool.js';
import type { ContainerEntry, Revision, RevisionFiles } from './revision.js';
import { parseContainerEntry } from './revision.js';

/** The revision in force: its files (to compare and persist) and their parsed form. */
export interface AppliedRevision {
  readonly files: RevisionFiles;
  readonly revision: Revision;
}

/**
 * A revision the daemon refused as a whole (its device.json), and what it would have changed
 * compared with the revision in force: the starts that need those things are refused, the others
 * are served by the revision in force.
 */
export interface RefusedRevision {
  readonly error: ErrorBody;
  /** The refused device.json text: a repeated refusal of the same text is not logged again. */
  readonly deviceJson: string | undefined;
  /** Pools the refused revision adds, removes, redefines or breaks; `all` when its pools cannot be read at all (or it has no device.json). */
  readonly pools: ReadonlySet<string> | 'all';
  /** The refused revision's containers, each parsed on its own, and whether its files differ from the revision in force. */
  readonly containers: ReadonlyMap<
    string,
    { readonly entry: ContainerEntry; readonly changed: boolean }
  >;
}

/**
 * Works out what a refused revision would have changed compared with `current` (the revision in
 * force, if any): each pool definition is parsed on its own, so one broken pool does not taint the
 * others; a pool is changed when it is invalid, conflicts with another, is new, differs, or is gone.
 */
export function assessRefusedRevision(args: {
  readonly files: RevisionFiles;
  readonly error: DeviceError;
  readonly current: AppliedRevision | undefined;
}): RefusedRevision {
  const { files, current } = args;
  const currentPools = current?.revision.pools ?? new Map<string, Pool>();
  let pools: Set<string> | 'all';
  try {
    // No device.json says nothing about any pool: every one counts as changed.
    if (files.deviceJson === undefined) throw new Error('no device.json');
    const definitions = readPoolDefinitions(files.deviceJson);
    pools = new Set<string>();
    const valid: Pool[] = [];
    for (const [name, raw] of Object.entries(definitions)) {
      try {
        valid.push(parsePool(name, raw));
      } catch {
        pools.add(name);
      }
    }
    for (const [i, a] of valid.entries()) {
      for (const b of valid.slice(i + 1)) {
        if (poolConflict(a, b) !== undefined) pools.add(a.name).add(b.name);
      }
      const before = currentPools.get(a.name);
      if (before === undefined || !samePool(before, a)) pools.add(a.name);
    }
    for (const name of currentPools.keys()) if (!(name in definitions)) pools.add(name);
  } catch {
    pools = 'all';
  }
  const before = new Map(current?.files.containers.map((c) => [c.name, c]) ?? []);
  const containers = new Map(
    files.containers.map((c) => {
      const old = before.get(c.name);
      const changed =
        old === undefined || old.runJson !== c.runJson || old.lxcConfig !== c.lxcConfig;
      return [c.name, { entry: parseContainerEntry(c), changed }] as const;
    }),
  );
  return { error: toErrorBody(args.error), deviceJson: files.deviceJson, pools, containers };
}

/**
 * Judges a start while a revision is refused: `serve` when the revision in force can serve it
 * (the container is not in the refused revision, or is unchanged and uses no changed pool),
 * `no-network` for a new or changed container that asks IPAM for nothing. Throws the container's
 * own parse error, or `RevisionRefused` when the start needs what the refused revision changes.
 */
export function judgeStartUnderRefusal(
  refused: RefusedRevision,
  container: string,
): 'serve' | 'no-network' {
  const c = refused.containers.get(container);
  if (c === undefined) return 'serve';
  if (c.entry.error !== undefined) throw c.entry.error;
  const why = `${refused.error.code}${refused.error.field === undefined ? '' : ` at ${refused.error.field}`}`;
  if (c.changed) {
    if (c.entry.network.mode !== 'pool') return 'no-network';
    throw new DeviceError(
      'RevisionRefused',
      `container '${container}' has a new or changed network in a refused revision (${why}); the last good revision stays in force`,
    );
  }
  const { pools } = refused;
  const hit = c.entry.network.interfaces.find((i) => pools === 'all' || pools.has(i.pool));
  if (hit !== undefined) {
    throw new DeviceError(
      'RevisionRefused',
      `container '${container}' uses pool '${hit.pool}', which a refused revision changes (${why}); the last good revision stays in force`,
    );
  }
  return 'serve';
}
