import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';
import { createTempDir } from '@netledger/testkit';
import { CTL_VERSION } from '../version.js';
import { memoryStore } from '../test-support/seed.js';
import { runCli } from '../test-support/run-cli.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-version-');
});
afterEach(async () => {
  await dir.remove();
});

const commit = { io: { commit: '0123456789ab' } };

describe('netledgerctl version', () => {
  it("prints the client's version and commit, as calicoctl, when no datastore is configured", async () => {
    const client = `Client Version:    ${CTL_VERSION}\nGit commit:        0123456789ab\n`;
    // A user whose home holds no default file store, whatever this machine's homes hold.
    const user = () => ({ uid: 1000, home: dir.path });
    const opener = createDatastoreOpener({
      user,
      etcd: { transport: 'grpc', dialTimeoutMs: 5000, loadGrpc: loadEtcdGrpc },
    });
    const io = { ...commit.io, user, openDatastore: opener.open };
    expect(await runCli(['version'], { io })).toEqual({ code: 0, stdout: client, stderr: '' });
    expect(await runCli(['--version'], { io })).toEqual({ code: 0, stdout: client, stderr: '' });
    const { commit: _, ...noCommit } = io;
    expect((await runCli(['version'], { io: noCommit })).stdout).toContain(
      'Git commit:        unknown\n',
    );
  });

  it("adds the datastore's type and the ClusterInformation's version and type", async () => {
    // A Kubernetes cluster's store, as calico/node leaves its ClusterInformation.
    const openDatastore = async () => {
      const { datastore } = memoryStore();
      await datastore.create({
        key: { kind: 'ClusterInformation', name: 'default' },
        value: {
          metadata: { name: 'default' },
          spec: { calicoVersion: 'v3.31.2', clusterType: 'k8s,bgp,kdd', datastoreReady: true },
        },
      });
      return datastore;
    };
    const r = await runCli(['version'], {
      env: { DATASTORE_TYPE: 'kubernetes' },
      io: { ...commit.io, openDatastore },
    });
    expect(r).toEqual({
      code: 0,
      stderr: '',
      stdout:
        `Client Version:    ${CTL_VERSION}\nGit commit:        0123456789ab\n` +
        'Datastore Type:    kubernetes\nCluster Version:   v3.31.2\nCluster Type:      k8s,bgp,kdd\n',
    });
    const json = await runCli(['version', '-o', 'json'], {
      env: { DATASTORE_TYPE: 'kubernetes' },
      io: { ...commit.io, openDatastore },
    });
    expect(JSON.parse(json.stdout)).toEqual({
      clientVersion: CTL_VERSION,
      commit: '0123456789ab',
      cluster: {
        datastoreType: 'kubernetes',
        clusterVersion: 'v3.31.2',
        clusterType: 'k8s,bgp,kdd',
      },
    });
  });

  it('reads a file store without creating or changing it; unknown without a ClusterInformation', async () => {
    const storePath = join(dir.path, 'ds.json');
    expect((await runCli(['node', 'create', 'n1'], { storePath })).code).toBe(0);
    expect((await runCli(['version'], { storePath, ...commit })).stdout).toContain(
      'Datastore Type:    file\nCluster Version:   unknown\nCluster Type:      unknown\n',
    );
    expect((await runCli(['datastore', 'migrate', 'lock'], { storePath })).code).toBe(0);
    expect((await runCli(['version'], { storePath, ...commit })).stdout).toContain(
      'Cluster Type:      netledger\n',
    );
  });

  it("a configured datastore that does not open: the client's lines, then the error (exit 1)", async () => {
    const storePath = join(dir.path, 'missing', 'ds.json');
    const r = await runCli(['version'], { storePath, ...commit });
    expect(r).toEqual({
      code: 1,
      stdout: `Client Version:    ${CTL_VERSION}\nGit commit:        0123456789ab\n`,
      stderr: expect.stringMatching(
        /^Error: unable to retrieve the cluster version: no datastore at .*missing\/ds\.json[^\n]*\n$/,
      ) as string,
    });
  });
});
