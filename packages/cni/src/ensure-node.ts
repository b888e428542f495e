import { isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import type { Logger } from './logger.js';

/**
 * Registers the node when it is missing (the file store's fresh host needs no setup step); a node
 * created concurrently is not an error. ADD calls it only once the request has been validated.
 */
export async function ensureNode(client: IpamClient, nodename: string, log: Logger): Promise<void> {
  try {
    await client.nodes.get(nodename);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    try {
      await client.nodes.create({ metadata: { name: nodename } });
      log.info(`registered node ${nodename}`);
    } catch (c) {
      if (!isIpamError(c, 'AlreadyExists')) throw c;
    }
  }
}
