// The store and the IPAM client the controllers work with.
import { createDatastoreOpener, isDatastoreConfigError } from '@netledger/datastore-config';
import type { DatastoreOpenerOptions } from '@netledger/datastore-config';
import { createIpamClient } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import { errorText } from '@netledger/kube-controllers';
import type { RunSetup } from './configure-run.js';
import { EXIT } from './exit-status.js';
import type { Fail } from './exit-status.js';

/** The opened store, its watch-fed mirror and the IPAM client over the mirror. */
export interface OpenedIpam {
  /** The store itself: what the controller manager watches. */
  readonly raw: Datastore;
  /** Closing it closes `raw`. */
  readonly mirrored: ReturnType<typeof createMirroredDatastore>;
  readonly ipam: ReturnType<typeof createIpamClient>;
}

/**
 * Opens the store (never creating one) behind a watch-fed mirror and makes the IPAM client over
 * it, reporting its best-effort steps that failed to `logger`. An exit status, said through
 * `fail`, when the store cannot be opened: usage for a bad setting, failure when it is absent or
 * unreachable.
 */
export async function openIpam(
  setup: Pick<RunSetup, 'storeConfig' | 'logger'> & { readonly opener: DatastoreOpenerOptions },
  fail: Fail,
): Promise<OpenedIpam | number> {
  const { storeConfig, logger } = setup;
  let raw: Datastore;
  try {
    raw = await createDatastoreOpener(setup.opener).open(storeConfig, { mayCreate: false });
  } catch (e) {
    return fail(
      isDatastoreConfigError(e) && e.code !== 'NoDatastore' && e.code !== 'NotAvailable'
        ? EXIT.usage
        : EXIT.failure,
      `cannot open the ${storeConfig.type} datastore: ${errorText(e)}`,
    );
  }
  // Pools, config and nodes the IPAM client reads come from a watch-fed mirror; block reads and
  // every write still go to the store. The GC follows the store through its own watch.
  const mirrored = createMirroredDatastore(raw);
  // A best-effort step that failed (as Calico logs it), with its facts as fields.
  const ipam = createIpamClient({
    datastore: mirrored,
    report: ({ level, message, cause, ...facts }) =>
      logger.log(level === 'error' ? 'error' : 'warn', message, {
        ...facts,
        error: cause instanceof Error ? cause.message : String(cause),
      }),
  });
  return { raw, mirrored, ipam };
}
