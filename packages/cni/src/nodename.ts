import type { IpamConf } from './net-conf.js';

/** How {@link resolveNodename} reads the outside world. */
export interface NodenameSources {
  /** The file's text, or `undefined` when it cannot be read. */
  readonly readFile: (path: string) => Promise<string | undefined>;
  readonly osHostname: () => string;
}

/**
 * calico-ipam's node name precedence: `nodename`, then the (trimmed, non-empty) contents of
 * `nodename_file`, then the deprecated `hostname`, then the OS hostname.
 */
export async function resolveNodename(ipam: IpamConf, sources: NodenameSources): Promise<string> {
  if (ipam.nodename !== undefined) return ipam.nodename;
  const fromFile = (await sources.readFile(ipam.nodenameFile))?.trim();
  if (fromFile) return fromFile;
  return ipam.hostname ?? sources.osHostname();
}
