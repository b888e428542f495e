import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir } from '@netledger/testkit';
import { runCli } from '../test-support/run-cli.js';

let dir: { path: string; remove: () => Promise<void> };
let storePath: string;
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-wide-');
  storePath = join(dir.path, 'ds.json');
  const seed = `apiVersion: projectcalico.org/v3
kind: IPPool
metadata: { name: pods, labels: { tier: a } }
spec: { cidr: 10.70.0.0/16, natOutgoing: true, vxlanMode: CrossSubnet }
---
apiVersion: projectcalico.org/v3
kind: Node
metadata: { name: node-1 }
spec: { bgp: { ipv4Address: 192.168.1.10/24, asNumber: 64512 } }
`;
  expect((await runCli(['create', '-f', '-'], { storePath, stdin: seed })).code).toBe(0);
});
afterEach(async () => {
  await dir.remove();
});

const out = async (argv: string[]) => {
  const r = await runCli(argv, { storePath });
  expect(r).toMatchObject({ code: 0, stderr: '' });
  return r.stdout;
};

describe('-o wide', () => {
  it('adds columns to a listing: pools, nodes and the IPAM configuration', async () => {
    const table = await out(['ippool', 'list']);
    expect(table).toBe(
      'NAME   CIDR           BLOCKSIZE   SELECTOR   ALLOWEDUSES       DISABLED\n' +
        'pods   10.70.0.0/16   26          all()      Workload,Tunnel   false\n',
    );
    const wide = await out(['ippool', 'list', '-o', 'wide']);
    expect(wide.split('\n')[0]!.split(/ +/)).toEqual([
      ...table.split('\n')[0]!.split(/ +/),
      'NAMESPACESELECTOR',
      'ASSIGNMENTMODE',
      'NAT',
      'IPIPMODE',
      'VXLANMODE',
      'DISABLEBGPEXPORT',
      'LABELS',
      'CREATED',
    ]);
    expect(wide.split('\n')[1]).toMatch(
      /^pods +10\.70\.0\.0\/16 +26 +all\(\) +Workload,Tunnel +false +Automatic +true +Never +CrossSubnet +false +tier=a +2026-01-01T00:00:00Z$/,
    );
    expect(await out(['get', 'ippool', '-o', 'wide'])).toBe(wide);
    expect((await out(['get', 'nodes', '-o', 'wide'])).split('\n')[1]).toMatch(
      /^node-1 +64512 +192\.168\.1\.10\/24 +2026-01-01T00:00:00Z$/,
    );
    expect(await out(['get', 'ipamconfig', '-o', 'wide'])).toMatch(
      /^NAME +STRICTAFFINITY +AUTOALLOCATEBLOCKS +MAXBLOCKSPERHOST +IPCOOLDOWNSECONDS +KUBEVIRTVMADDRESSPERSISTENCE\ndefault +false +true +0 +0 +Enabled\n$/,
    );
  });

  it('is refused where there is no listing', async () => {
    const r = await runCli(['ipam', 'show', '-o', 'wide'], { storePath });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^Error: unknown output format "wide" \(table, json, yaml, html\)\n$/);
  });
});
