import { DeviceError } from './device-error.js';
import type { IpFamily } from './address.js';
import { parseAddressWithPrefix } from './parse-address.js';

/** An address hard-coded in an lxc.container.conf (`lxc.net.N.ipv4.address` or `.ipv6.address`). */
export interface BakedAddress {
  readonly index: number;
  readonly family: IpFamily;
  readonly ip: bigint;
  readonly line: number;
}

/** What the daemon needs from an lxc.container.conf. */
export interface LxcConfigScan {
  /** Keys of every `lxc.net.*` (and legacy `lxc.network.*`) line, with 1-based line numbers. */
  readonly netKeys: readonly { readonly key: string; readonly line: number }[];
  /** Hard-coded addresses of both families; `auto` and `dhcp` are not addresses and are left out. */
  readonly addresses: readonly BakedAddress[];
  /** The namespaces of the last `lxc.namespace.keep` line, if any. */
  readonly namespaceKeep: readonly string[] | undefined;
}

const KEY = /^lxc\.[A-Za-z0-9_.-]+$/;
const ADDRESS_KEY = /^lxc\.net\.(0|[1-9][0-9]{0,3})\.ipv([46])\.address$/;

/**
 * Reads an lxc.container.conf as `key = value` lines (blank lines and `#` comments skipped).
 * Throws `InvalidLxcConfig` for a line that is not `lxc.<key> = value` or an address that is not
 * of its key's family (`a.b.c.d[/p]`, optionally followed by a broadcast address, or `x::y[/p]`).
 */
export function scanLxcConfig(text: string, opts: { readonly container: string }): LxcConfigScan {
  const netKeys: { key: string; line: number }[] = [];
  const addresses: BakedAddress[] = [];
  let namespaceKeep: string[] | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = (lines[i] ?? '').replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const fail = (why: string): never => {
      throw new DeviceError(
        'InvalidLxcConfig',
        `${opts.container}: lxc.container.conf line ${lineNo}: ${why}`,
      );
    };
    const eq = line.indexOf('=');
    if (eq < 0) fail('expected "key = value"');
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!KEY.test(key)) fail(`invalid key ${JSON.stringify(key.slice(0, 80))}`);
    if (key.startsWith('lxc.net.') || key.startsWith('lxc.network.'))
      netKeys.push({ key, line: lineNo });
    if (key === 'lxc.namespace.keep') namespaceKeep = value.split(/\s+/).filter((s) => s !== '');
    const m = ADDRESS_KEY.exec(key);
    if (!m) continue;
    const first = value.split(/[\s#]/)[0] ?? '';
    if (first === '' || /^(auto|dhcp)$/i.test(first)) continue;
    const family = m[2] === '4' ? 4 : 6;
    const parsed = parseAddressWithPrefix(first, family);
    if (!parsed.ok) fail(`${key}: ${parsed.why}`);
    else addresses.push({ index: Number(m[1]), family, ip: parsed.value.ip, line: lineNo });
  }
  return { netKeys, addresses, namespaceKeep };
}
