import type { Cidr } from './cidr.js';
import { formatIp } from './format-ip.js';

/** Formats a CIDR as `base/prefix`, e.g. `10.0.0.0/26` or `fd80:24e2:f998:72d6::/122`. */
export function formatCidr(c: Cidr): string {
  return `${formatIp({ version: c.version, value: c.base })}/${c.prefix}`;
}
