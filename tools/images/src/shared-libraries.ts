import { execFileSync } from 'node:child_process';

/**
 * The files an executable loads, from `ldd`'s output: each library's path (`libc.so.6 =>
 * /lib/x86_64-linux-gnu/libc.so.6 (0x...)`) and the dynamic loader's (`/lib64/ld-linux-x86-64.so.2
 * (0x...)`); the kernel's vDSO, which is no file, is left out. Sorted, without repeats. Throws
 * naming the library for one ldd could not find, and for a line it does not understand. A static
 * executable (`not a dynamic executable`, `statically linked`) needs none.
 */
export function parseLdd(output: string, executable: string): string[] {
  const paths = new Set<string>();
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || /^(not a dynamic executable|statically linked)$/.test(line)) continue;
    if (/ => not found$/.test(line))
      throw new Error(`${executable} needs ${line.split(' ')[0]}, which ldd cannot find`);
    const arrow = /^\S+ => (\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (arrow) {
      paths.add(arrow[1]!);
      continue;
    }
    const bare = /^(\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (bare) {
      if (bare[1]!.startsWith('/')) paths.add(bare[1]!); // the loader
      continue; // linux-vdso.so.1: in the kernel
    }
    throw new Error(`ldd ${executable}: cannot read "${line}"`);
  }
  return [...paths].sort();
}

/** The shared libraries and loader `executable` needs on this machine (`ldd`, parseLdd). */
export function sharedLibrariesOf(executable: string): string[] {
  let output: string;
  try {
    output = execFileSync('ldd', [executable], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    // ldd exits 1 for a static executable, saying so.
    const err = e as { stdout?: string; stderr?: string; message: string };
    const said = `${err.stdout ?? ''}${err.stderr ?? ''}`;
    if (/not a dynamic executable|statically linked/.test(said)) return [];
    throw new Error(`ldd ${executable} failed: ${said.trim() || err.message}`, { cause: e });
  }
  return parseLdd(output, executable);
}
