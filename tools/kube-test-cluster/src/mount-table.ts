/** One line of /proc/self/mountinfo: where a file system is mounted and its type. */
export interface MountEntry {
  readonly mountPoint: string;
  readonly fsType: string;
}

/** mountinfo escapes space, tab, newline and backslash as \\ooo. */
const unescape = (s: string): string =>
  s.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The entries of a /proc/<pid>/mountinfo text, in its order (a mount after its parent). */
export function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-');
    if (fields.length < 10 || separator < 6) continue;
    entries.push({ mountPoint: unescape(fields[4]!), fsType: fields[separator + 1]! });
  }
  return entries;
}

/**
 * The mount points at or under `dir`, in the order to unmount them: last mounted first (a mount
 * on top of another, or inside it, comes after it in mountinfo). A path mounted twice is listed
 * twice: each unmount removes the top one.
 */
export function mountsUnder(entries: readonly MountEntry[], dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return entries
    .map((e) => e.mountPoint)
    .filter((m) => m === dir || m.startsWith(prefix))
    .reverse();
}
