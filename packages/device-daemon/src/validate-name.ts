/** The kinds of names that reach the host (file paths, netlink, nft, iptables) and are checked first. */
export type NameKind = 'pool' | 'container' | 'interface' | 'hostname';

// Interface names follow the kernel's rule (IFNAMSIZ 16 incl. NUL, no '/', ':' or whitespace),
// narrowed to a portable set so they are safe inside nft strings and iptables arguments.
const INTERFACE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,14}$/;
const POOL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const CONTAINER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** True when `value` is an acceptable name of the given kind. */
export function isValidName(kind: NameKind, value: string): boolean {
  switch (kind) {
    case 'interface':
      return INTERFACE.test(value) && value !== '.' && value !== '..';
    case 'pool':
      return POOL.test(value);
    case 'container':
      return CONTAINER.test(value) && !value.includes('..');
    case 'hostname':
      return value.length <= 253 && value.split('.').every((label) => HOSTNAME_LABEL.test(label));
  }
}

const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

/**
 * Normalises a MAC address to lower-case colon form, or returns `undefined` when it is malformed,
 * multicast (a container's own address must be unicast) or all zeros.
 */
export function normaliseMac(text: string): string | undefined {
  const mac = text.toLowerCase().replaceAll('-', ':');
  if (!MAC.test(mac)) return undefined;
  const first = parseInt(mac.slice(0, 2), 16);
  if ((first & 1) === 1 || mac === '00:00:00:00:00:00') return undefined;
  return mac;
}
