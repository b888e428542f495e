import { isIpamError } from '@netledger/ipam-core';
import type { Datastore, IpamClient, Node } from '@netledger/ipam-core';
import type { Logger } from './logger.js';

/**
 * Registers the node when it is missing (the file store's fresh host needs no setup step); a node
 * created concurrently is not an error. ADD calls it only once the request has been validated.
 * Returns the node as this call created it (with its `resourceVersion`), or undefined when it was
 * there already (or another process created it meanwhile).
 */
export async function ensureNode(
  client: IpamClient,
  nodename: string,
  log: Logger,
): Promise<Node | undefined> {
  try {
    await client.nodes.get(nodename);
    return undefined;
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    try {
      const created = await client.nodes.create({ metadata: { name: nodename } });
      log.info(`registered node ${nodename}`);
      return created;
    } catch (c) {
      if (!isIpamError(c, 'AlreadyExists')) throw c;
      return undefined;
    }
  }
}

/**
 * Takes back the registration of a node that {@link ensureNode} created for an ADD that then
 * failed, so that a failed ADD registers nothing: the node is deleted by compare-and-swap on the
 * version created (a node changed since is kept), and only while no block affinity names it (a
 * block claimed for it keeps it). Never throws: a failure is logged, and the node stays.
 */
export async function unregisterNode(
  datastore: Datastore,
  created: Node,
  log: Logger,
): Promise<void> {
  const name = created.metadata.name;
  try {
    if ((await datastore.list({ kind: 'BlockAffinity', host: name })).items.length > 0) return;
    const revision = created.metadata.resourceVersion;
    if (revision === undefined) return; // only ever a compare-and-swap delete
    await datastore.delete({ kind: 'Node', name }, { revision });
    log.info(`unregistered node ${name}: the ADD that registered it failed`);
  } catch (e) {
    log.warning(`node ${name} stays registered after a failed ADD: ${(e as Error).message}`);
  }
}
