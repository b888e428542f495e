import { describe, expect, it } from 'vitest';
import { metaOf } from './kube-reads.js';
import { mayBeVirtLauncher, vmAttrs, vmHandleId, vmiOwnerOf } from './kubevirt.js';

describe('vmHandleId (Calico CreateVMHandleID)', () => {
  it('is <network>.vmi.<namespace>.<vm> up to 128 characters', () => {
    expect(vmHandleId('k8s-pod-network', 'default', 'vm1')).toBe('k8s-pod-network.vmi.default.vm1');
    const vm = 'v'.repeat(128 - 'net.vmi.ns.'.length);
    expect(vmHandleId('net', 'ns', vm)).toBe(`net.vmi.ns.${vm}`);
  });

  it('hashes the namespace and VM name beyond 128 characters, never cutting past the hash', () => {
    const long = vmHandleId('net', 'ns', 'v'.repeat(200));
    // sha256 base64url is 43 characters; Calico would slice it to 119 and panic.
    expect(long).toMatch(/^net\.vmi\._[A-Za-z0-9_-]{43}$/);
    expect(vmHandleId('net', 'ns', 'v'.repeat(200))).toBe(long);
    expect(vmHandleId('net', 'ns', 'w'.repeat(200))).not.toBe(long);
    const prefix = `${'n'.repeat(100)}.vmi.`;
    expect(vmHandleId('n'.repeat(100), 'ns', 'v'.repeat(40))).toHaveLength(128);
    expect(vmHandleId('n'.repeat(100), 'ns', 'v'.repeat(40)).startsWith(`${prefix}_`)).toBe(true);
  });
});

describe('virt-launcher pods', () => {
  const pod = (owners: unknown[]) =>
    metaOf({
      metadata: { name: 'virt-launcher-vm1-abcde', namespace: 'ns', ownerReferences: owners },
    });
  const vmiRef = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    name: 'vm1',
    uid: 'u-1',
    controller: true,
  };

  it('are controller-owned by a kubevirt.io/v1 VirtualMachineInstance', () => {
    expect(vmiOwnerOf(pod([vmiRef]))).toMatchObject({ name: 'vm1', uid: 'u-1' });
    expect(vmiOwnerOf(pod([{ ...vmiRef, controller: false }]))).toBeUndefined();
    expect(vmiOwnerOf(pod([{ ...vmiRef, apiVersion: 'kubevirt.io/v1alpha3' }]))).toBeUndefined();
    expect(vmiOwnerOf(pod([{ ...vmiRef, kind: 'ReplicaSet' }]))).toBeUndefined();
    expect(mayBeVirtLauncher('virt-launcher-vm1-abcde')).toBe(true);
    expect(mayBeVirtLauncher('web-0')).toBe(false);
  });

  it('record vmi-name, vmi-uid, and vm-uid and vmim-uid when known', () => {
    expect(vmAttrs({ namespace: 'ns', name: 'vm1', vmiUid: 'i', deleting: false })).toEqual({
      'vmi-name': 'vm1',
      'vmi-uid': 'i',
    });
    expect(
      vmAttrs({
        namespace: 'ns',
        name: 'vm1',
        vmiUid: 'i',
        vmUid: 'v',
        migrationJobUid: 'm',
        deleting: false,
      }),
    ).toEqual({ 'vmi-name': 'vm1', 'vmi-uid': 'i', 'vm-uid': 'v', 'vmim-uid': 'm' });
  });
});
