import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IpFamily } from './address.js';

/** Turns on forwarding of one address family in the daemon's network namespace. */
export interface IpForwarding {
  /** Enables forwarding; throws the file system error when it cannot. */
  enable(family: IpFamily): Promise<void>;
}

/**
 * {@link IpForwarding} through `<procRoot>/sys/net/ipv4/ip_forward` and, for IPv6,
 * `<procRoot>/sys/net/ipv6/conf/all/forwarding` (which also makes interfaces with `accept_ra = 1`
 * ignore router advertisements: docs/device-daemon.md).
 */
export function createProcIpForwarding(opts: { readonly procRoot: string }): IpForwarding {
  return {
    async enable(family) {
      const file = family === 4 ? 'sys/net/ipv4/ip_forward' : 'sys/net/ipv6/conf/all/forwarding';
      await writeFile(join(opts.procRoot, file), '1\n');
    },
  };
}
