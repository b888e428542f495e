import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cniEnv, execPlugin, requirePlugin } from './exec-harness.js';

// The plugin reaches etcd through its HTTP/JSON gateway: no datastore may load gRPC, whose
// transport is the only user of http2, and only etcdv3 loads node:http. The Kubernetes store's
// chunk loads node:https when it is imported, which only a kubernetes config does. The
// builtin-module list of the Node.js fallback tells which were loaded.
let dir: { path: string; remove: () => Promise<void> };
let probe: string;
const modes = [['the Node.js fallback', (): string[] => ['--require', probe]]] as const;

beforeAll(async () => {
  requirePlugin();
  dir = await createTempDir('netledger-cni-lazy-');
  probe = join(dir.path, 'probe.cjs');
  writeFileSync(
    probe,
    "process.on('exit', () => { const l = process.moduleLoadList; process.stderr.write(`\\nHTTP2_LOADED=${l.includes('NativeModule http2')} HTTP_LOADED=${l.includes('NativeModule http')} HTTPS_LOADED=${l.includes('NativeModule https')}\\n`); });\n",
  );
});
afterAll(async () => {
  await dir?.remove();
});

const conf = (ipam: Record<string, unknown>): string =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'lazy',
    ipam: {
      type: 'netledger-ipam',
      nodename: 'n',
      ipam_lock_file: join(dir.path, 'l'),
      log_level: 'error',
      ...ipam,
    },
  });

describe.each(modes)('datastore adapters (%s)', (_, nodeArgs) => {
  it('the file store loads neither gRPC nor node:http', () => {
    const r = execPlugin(
      cniEnv('STATUS', ''),
      conf({ datastore_path: join(dir.path, 'ds.json') }),
      nodeArgs(),
    );
    expect(r.json).toMatchObject({ code: 50 });
    expect(r.stderr).toContain('HTTP2_LOADED=false HTTP_LOADED=false HTTPS_LOADED=false');
  });

  it('kubernetes compiles the embedded Kubernetes store (and reports an unreachable API server)', () => {
    const kubeconfig = join(dir.path, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n',
    );
    const r = execPlugin(
      cniEnv('STATUS', ''),
      conf({ datastore_type: 'kubernetes', kubernetes: { kubeconfig } }),
      nodeArgs(),
    );
    expect(r.stderr).toContain('HTTP2_LOADED=false HTTP_LOADED=true HTTPS_LOADED=true');
    expect(r.json).toMatchObject({
      code: 50,
      msg: expect.stringContaining('kube-apiserver at https://127.0.0.1:9 unreachable'),
    });
  });

  it('an unreadable kubeconfig is an invalid network config (7)', () => {
    const r = execPlugin(
      cniEnv('ADD'),
      conf({ datastore_type: 'kubernetes', kubernetes: { kubeconfig: join(dir.path, 'none') } }),
      nodeArgs(),
    );
    expect(r.json).toMatchObject({
      code: 7,
      msg: expect.stringMatching(/^cannot load Kubernetes config from .*none: ENOENT/),
    });
  });

  it.each([
    ['etcdv3 goes through the HTTP gateway, not gRPC', {}, 'HTTP2_LOADED=false HTTP_LOADED=true'],
    [
      'etcd_transport "grpc" compiles the embedded gRPC adapter',
      { etcd_transport: 'grpc' },
      'HTTP2_LOADED=true',
    ],
  ])(
    '%s (and reports an unreachable etcd as unavailable)',
    (_, transport, loaded) => {
      const r = execPlugin(
        cniEnv('STATUS', ''),
        conf({ datastore_type: 'etcdv3', etcd_endpoints: 'http://127.0.0.1:9', ...transport }),
        nodeArgs(),
      );
      expect(r.stderr).toContain(loaded);
      expect(r.json).toMatchObject({
        code: 50,
        msg: expect.stringContaining('datastore unavailable'),
      });
    },
    60_000,
  );

  it('an invalid etcd endpoint is an invalid network config (7)', () => {
    const r = execPlugin(
      cniEnv('ADD'),
      conf({ datastore_type: 'etcdv3', etcd_endpoints: 'ftp://x' }),
      nodeArgs(),
    );
    expect(r.json).toMatchObject({ code: 7, msg: expect.stringContaining('ftp://x') });
  });
});
