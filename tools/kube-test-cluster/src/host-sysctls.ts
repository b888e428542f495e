import { readFile, writeFile } from 'node:fs/promises';

/**
 * The host-wide sysctls a cluster changes: kubelet sets the first six to Kubernetes' defaults
 * when it starts (it would refuse to start with protectKernelDefaults instead), and the ptp
 * plugin turns on IPv4 forwarding. `up` records them first; `down` puts them back.
 */
export const CLUSTER_SYSCTLS = [
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.panic',
  'kernel.panic_on_oops',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
  'net.ipv4.ip_forward',
] as const;

const path = (name: string): string => `/proc/sys/${name.replaceAll('.', '/')}`;

/** The current values of `names`. */
export async function readSysctls(names: readonly string[]): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const name of names) values[name] = (await readFile(path(name), 'utf8')).trim();
  return values;
}

/**
 * Writes back every value of `saved` that differs now; returns the names it changed. Throws on
 * the first write that fails, having restored the ones before it.
 */
export async function restoreSysctls(saved: Readonly<Record<string, string>>): Promise<string[]> {
  const changed: string[] = [];
  for (const [name, value] of Object.entries(saved)) {
    // Only ours: the state file names them, and a path must never come from a file.
    if (!(CLUSTER_SYSCTLS as readonly string[]).includes(name)) continue;
    if ((await readFile(path(name), 'utf8')).trim() === value) continue;
    await writeFile(path(name), `${value}\n`);
    changed.push(name);
  }
  return changed;
}
