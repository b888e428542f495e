import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Turns on IPv4 forwarding in the daemon's network namespace. */
export interface IpForwarding {
  /** Enables forwarding; throws the file system error when it cannot. */
  enable(): Promise<void>;
}

/** {@link IpForwarding} through `<procRoot>/sys/net/ipv4/ip_forward`. */
export function createProcIpForwarding(opts: { readonly procRoot: string }): IpForwarding {
  return {
    async enable() {
      await writeFile(join(opts.procRoot, 'sys/net/ipv4/ip_forward'), '1\n');
    },
  };
}
