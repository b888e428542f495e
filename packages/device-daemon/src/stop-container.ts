import type { DaemonState } from './daemon-state.js';
import { persistState } from './daemon-state.js';
import { DeviceError } from './device-error.js';
import { filterLeases, leasesOfContainer } from './lease.js';
import type { LeaseView } from './views.js';
import { toLeaseView } from './views.js';

/**
 * Marks a container of the revision in force (or of a refused one) stopped; its leases are kept
 * for the next start. Throws `NoRevision` or `UnknownContainer`, changing nothing.
 */
export function stopContainer(
  state: DaemonState,
  container: string,
): { readonly container: string; readonly leases: readonly LeaseView[] } {
  const { current, refused } = state;
  if (current === undefined) throw new DeviceError('NoRevision', 'no revision applied yet');
  if (!current.revision.containers.has(container) && !refused?.containers.has(container)) {
    throw new DeviceError(
      'UnknownContainer',
      `container '${container}' is not in the applied revision`,
    );
  }
  state.running.delete(container);
  return { container, leases: leasesOfContainer(state.book, container).map(toLeaseView) };
}

/**
 * Releases every lease of the container, persisted before it answers (a failed save throws and
 * releases nothing), and marks it stopped.
 */
export async function teardownContainer(
  state: DaemonState,
  container: string,
): Promise<{ readonly container: string; readonly released: readonly LeaseView[] }> {
  const released = leasesOfContainer(state.book, container);
  await persistState(state, {
    book: filterLeases(state.book, (l) => l.owner !== container),
    pools: state.hostPools,
  });
  state.running.delete(container);
  for (const l of released) state.deps.logger.log('info', 'released lease', { ...toLeaseView(l) });
  return { container, released: released.map(toLeaseView) };
}
