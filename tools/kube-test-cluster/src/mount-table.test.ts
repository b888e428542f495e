import { describe, expect, it } from 'vitest';
import { mountsUnder, parseMountinfo } from './mount-table.js';

const MOUNTINFO = [
  '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '30 22 0:26 / /sys/fs/cgroup rw shared:5 - tmpfs tmpfs rw,mode=755',
  '31 30 0:27 / /sys/fs/cgroup/cpu rw shared:6 - cgroup cgroup rw,cpu',
  '32 30 0:28 / /sys/fs/cgroup/unified rw shared:7 - cgroup2 cgroup2 rw',
  '40 22 0:50 / /tmp/c/state/sandboxes/abc/shm rw - tmpfs shm rw,size=65536k',
  '41 22 0:4 net:[4026532290] /tmp/c/state/netns/cni-1 rw shared:9 - nsfs nsfs rw',
  '42 22 0:51 / /tmp/c/kubelet/pods/with\\040space rw - tmpfs tmpfs rw',
  '43 42 0:52 / /tmp/c/kubelet/pods/with\\040space/inner rw - tmpfs tmpfs rw',
  '44 40 0:53 / /tmp/c/state/sandboxes/abc/shm rw - tmpfs shm rw',
  '45 22 0:54 / /tmp/cc rw - tmpfs tmpfs rw',
].join('\n');

describe('parseMountinfo', () => {
  it('reads mount points (unescaped) and file system types', () => {
    const entries = parseMountinfo(`${MOUNTINFO}\n`);
    expect(entries).toHaveLength(10);
    expect(entries[3]).toEqual({ mountPoint: '/sys/fs/cgroup/unified', fsType: 'cgroup2' });
    expect(entries[6]).toEqual({ mountPoint: '/tmp/c/kubelet/pods/with space', fsType: 'tmpfs' });
  });
});

describe('mountsUnder', () => {
  it('lists the mounts under a directory, last mounted first, stacked ones twice', () => {
    expect(mountsUnder(parseMountinfo(MOUNTINFO), '/tmp/c')).toEqual([
      '/tmp/c/state/sandboxes/abc/shm',
      '/tmp/c/kubelet/pods/with space/inner',
      '/tmp/c/kubelet/pods/with space',
      '/tmp/c/state/netns/cni-1',
      '/tmp/c/state/sandboxes/abc/shm',
    ]);
  });

  it('does not take a sibling whose name starts the same', () => {
    expect(mountsUnder(parseMountinfo(MOUNTINFO), '/tmp/cc')).toEqual(['/tmp/cc']);
    expect(mountsUnder(parseMountinfo(MOUNTINFO), '/tmp/none')).toEqual([]);
  });
});
