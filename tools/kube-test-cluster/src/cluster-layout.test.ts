import { describe, expect, it } from 'vitest';
import { clusterLayout } from './cluster-layout.js';

describe('clusterLayout', () => {
  it('puts every path under DIR, and a cgroup root of its own', () => {
    const layout = clusterLayout('/tmp/c1');
    const paths = [
      layout.stateFile,
      layout.kubeconfig,
      ...Object.values(layout.apiserver),
      ...Object.values(layout.containerd),
      ...Object.values(layout.cni),
      ...Object.values(layout.kubelet),
      layout.imageDir,
      layout.hostDir,
    ];
    for (const path of paths) expect(path.startsWith('/tmp/c1/')).toBe(true);
    expect(layout.cgroupRoot).toMatch(/^\/kube-test-cluster-[0-9a-f]{12}$/);
    expect(clusterLayout('/tmp/c2').cgroupRoot).not.toBe(layout.cgroupRoot);
    expect(clusterLayout('/tmp/c1').cgroupRoot).toBe(layout.cgroupRoot);
  });

  it("refuses a DIR too long for containerd's unix sockets", () => {
    const longest = `/${'d'.repeat(107 - '/containerd/containerd.sock.ttrpc'.length - 1)}`;
    expect(clusterLayout(longest).containerd.socket).toBe(`${longest}/containerd/containerd.sock`);
    expect(() => clusterLayout(`${longest}x`)).toThrow(
      expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(/too long/) }),
    );
  });
});
