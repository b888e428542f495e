import { readFile, rename, writeFile } from 'node:fs/promises';
import type { CniChoice } from './parse-args.js';

/** A process `up` started: its PID and start time name it (a reused PID is another process). */
export interface ProcessRecord {
  readonly name: string;
  readonly pid: number;
  readonly startTime: string;
}

/** What `up` started and changed outside DIR, in DIR/cluster.json, for `down` to undo. */
export interface ClusterState {
  readonly tool: 'kube-test-cluster';
  readonly cni: CniChoice;
  readonly createdAt: string;
  /** In start order; `down` stops them in reverse. */
  readonly processes: readonly ProcessRecord[];
  /** Host sysctls as they were before `up` (see host-sysctls.ts). */
  readonly sysctls: Readonly<Record<string, string>>;
  /** The pods' cgroup root in each hierarchy (recorded before it is made). */
  readonly cgroupDirs: readonly string[];
  /**
   * Directories outside DIR that did not exist before `up` and that kubelet or containerd may
   * make (/var/log/containers, /run/containerd/s, /run/containerd): `down` removes them when
   * they are empty.
   */
  readonly absentBefore: readonly string[];
}

/** A fresh state for `up` (nothing started yet). */
export function newClusterState(cni: CniChoice, now: Date): ClusterState {
  return {
    tool: 'kube-test-cluster',
    cni,
    createdAt: now.toISOString(),
    processes: [],
    sysctls: {},
    cgroupDirs: [],
    absentBefore: [],
  };
}

/** Writes the state through a temp file and a rename: a reader sees the old or the new one. */
export async function writeClusterState(file: string, state: ClusterState): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(tmp, file);
}

/** The state in `file`, or undefined when there is none or it is not one of ours. */
export async function readClusterState(file: string): Promise<ClusterState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const state = JSON.parse(text) as Partial<ClusterState>;
    return state.tool === 'kube-test-cluster' ? (state as ClusterState) : undefined;
  } catch {
    return undefined;
  }
}
