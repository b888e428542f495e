import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MountEntry } from './mount-table.js';

/** The mount point of every cgroup hierarchy (v1 controllers, named ones, the v2 unified one). */
export function cgroupHierarchies(mounts: readonly MountEntry[]): string[] {
  return mounts
    .filter((m) => m.fsType === 'cgroup' || m.fsType === 'cgroup2')
    .map((m) => m.mountPoint);
}

/**
 * Makes the cgroup `root` (e.g. `/kube-test-cluster-<hash>`) in every hierarchy, as kubelet
 * requires its cgroupRoot to exist; a new cpuset cgroup gets its parent's CPUs and memory nodes
 * (it can hold no task without them). The caller records `join(hierarchy, root)` of each
 * hierarchy first: {@link removeCgroupTrees} skips those never made.
 */
export async function makeCgroupRoot(hierarchies: readonly string[], root: string): Promise<void> {
  for (const hierarchy of hierarchies) {
    const dir = join(hierarchy, root);
    await mkdir(dir);
    if (hierarchy.endsWith('/cpuset')) {
      for (const file of ['cpuset.cpus', 'cpuset.mems']) {
        await writeFile(join(dir, file), await readFile(join(hierarchy, file), 'utf8'));
      }
    }
  }
}

/** Every cgroup under `dir` (itself included), children before their parent. */
async function cgroupsDepthFirst(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const children = await Promise.all(
    entries.filter((e) => e.isDirectory()).map((e) => cgroupsDepthFirst(join(dir, e.name))),
  );
  return [...children.flat(), dir];
}

/** The PIDs in one cgroup (none when it is gone). */
async function pidsIn(cgroup: string): Promise<number[]> {
  try {
    const text = await readFile(join(cgroup, 'cgroup.procs'), 'utf8');
    return text.split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Removes each cgroup tree of `dirs`: SIGKILLs whatever process is still in it (a container
 * that outlived its runtime), waits for them to leave, then removes the cgroups, children first.
 * Returns the cgroups it could not remove (empty when all are gone).
 */
export async function removeCgroupTrees(dirs: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const dir of dirs) {
    for (let attempt = 0; ; attempt++) {
      const cgroups = await cgroupsDepthFirst(dir);
      const pids = (await Promise.all(cgroups.map(pidsIn))).flat();
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      const failed: string[] = [];
      for (const cgroup of cgroups) {
        try {
          await rmdir(cgroup);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') failed.push(cgroup);
        }
      }
      if (failed.length === 0) break;
      if (attempt >= 50) {
        left.push(...failed);
        break;
      }
      await sleep(100); // the killed processes leave their cgroups as they exit
    }
  }
  return left;
}
