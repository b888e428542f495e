import { describe, expect, it } from 'vitest';
import { resolveDatastoreConfig } from './datastore-config.js';

const base = { uid: 1000, home: '/home/u' };

describe('resolveDatastoreConfig', () => {
  it('defaults to the file store at the default path', () => {
    expect(resolveDatastoreConfig({ ...base, env: {} })).toEqual({
      type: 'file',
      path: '/home/u/.local/state/netledger/datastore.json',
    });
    expect(
      resolveDatastoreConfig({ ...base, env: { NETLEDGER_DATASTORE_PATH: '/x/ds.json' } }),
    ).toEqual({
      type: 'file',
      path: '/x/ds.json',
    });
  });

  it('reads etcd settings from the environment', () => {
    expect(
      resolveDatastoreConfig({
        ...base,
        env: {
          DATASTORE_TYPE: 'etcdv3',
          ETCD_ENDPOINTS: 'https://a:2379, https://b:2379',
          ETCD_CA_CERT_FILE: '/ca.pem',
          ETCD_CERT_FILE: '/c.pem',
          ETCD_KEY_FILE: '/k.pem',
          ETCD_USERNAME: 'u',
          ETCD_PASSWORD: 'p',
        },
      }),
    ).toEqual({
      type: 'etcdv3',
      endpoints: ['https://a:2379', 'https://b:2379'],
      tls: { ca: '/ca.pem', cert: '/c.pem', key: '/k.pem' },
      username: 'u',
      password: 'p',
    });
  });

  it('reads a calicoctl config file instead of the environment', () => {
    const configText = `apiVersion: projectcalico.org/v3
kind: CalicoAPIConfig
metadata: {}
spec:
  datastoreType: etcdv3
  etcdEndpoints: http://127.0.0.1:2379
`;
    expect(
      resolveDatastoreConfig({
        ...base,
        env: { DATASTORE_TYPE: 'kubernetes' },
        configText,
        configPath: 'c.yaml',
      }),
    ).toEqual({ type: 'etcdv3', endpoints: ['http://127.0.0.1:2379'] });
    const json = JSON.stringify({
      kind: 'CalicoAPIConfig',
      spec: { datastoreType: 'file', datastorePath: '/d.json' },
    });
    expect(resolveDatastoreConfig({ ...base, env: {}, configText: json })).toEqual({
      type: 'file',
      path: '/d.json',
    });
    expect(
      resolveDatastoreConfig({
        ...base,
        env: {},
        configText: 'kind: CalicoAPIConfig\nspec:\n  datastoreType: kubernetes\n  kubeconfig: /k',
      }),
    ).toEqual({ type: 'kubernetes', kubeconfig: '/k' });
  });

  it.each([
    [{ DATASTORE_TYPE: 'mysql' }, 'unknown datastore type "mysql"'],
    [{ DATASTORE_TYPE: 'etcdv3' }, 'needs etcd endpoints (ETCD_ENDPOINTS)'],
    [{ DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: 'ftp://x' }, 'is not an http(s)://host:port URL'],
  ])('rejects %j', (env, message) => {
    expect(() => resolveDatastoreConfig({ ...base, env })).toThrow(message);
  });

  it('rejects a bad config file', () => {
    expect(() =>
      resolveDatastoreConfig({ ...base, env: {}, configText: 'kind: Other', configPath: 'c' }),
    ).toThrow('c: expected kind CalicoAPIConfig');
    expect(() =>
      resolveDatastoreConfig({ ...base, env: {}, configText: '{ not: [yaml', configPath: 'c' }),
    ).toThrow('c: not valid YAML or JSON');
  });
});
