import { describe, expect, it } from 'vitest';
import { DatastoreConfigError } from '@netledger/datastore-config';
import type { DatastoreConfigErrorCode } from '@netledger/datastore-config';
import { selectDatastore, toCtlError } from './datastore-config.js';

// The settings' precedence and messages are tested in @netledger/datastore-config; these are
// netledgerctl's own rules: the -c file replaces the environment, a default config file is read
// under it, errors are CtlErrors.
const CALICOCTL_CFG = `apiVersion: projectcalico.org/v3
kind: CalicoAPIConfig
metadata: {}
spec:
  datastoreType: etcdv3
  etcdEndpoints: http://10.0.0.1:2379
  etcdUsername: calico
`;

describe('selectDatastore', () => {
  it('reads the environment without a config file', () => {
    expect(selectDatastore({ env: {} })).toEqual({ config: { type: 'file' }, source: 'default' });
    expect(
      selectDatastore({ env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: 'http://a:2379' } }),
    ).toEqual({ config: { type: 'etcdv3', endpoints: 'http://a:2379' }, source: 'environment' });
  });

  it('reads a default config file under the environment: a variable that is set wins', () => {
    const file = { text: CALICOCTL_CFG, path: '/etc/calico/calicoctl.cfg', explicit: false };
    expect(selectDatastore({ env: {}, file })).toEqual({
      config: { type: 'etcdv3', endpoints: 'http://10.0.0.1:2379', username: 'calico' },
      source: 'file',
      file: '/etc/calico/calicoctl.cfg',
    });
    expect(
      selectDatastore({ env: { ETCD_ENDPOINTS: 'http://10.0.0.9:2379', ETCD_USERNAME: '' }, file })
        .config,
    ).toEqual({ type: 'etcdv3', endpoints: 'http://10.0.0.9:2379', username: 'calico' });
    expect(
      selectDatastore({ env: { DATASTORE_TYPE: 'file', NETLEDGER_DATASTORE_PATH: '/s' }, file })
        .config,
    ).toEqual({ type: 'file', path: '/s' });
  });

  it('takes a -c file alone: the environment does not override it (as calicoctl)', () => {
    const file = { text: CALICOCTL_CFG, path: 'c.yaml', explicit: true };
    expect(
      selectDatastore({ env: { DATASTORE_TYPE: 'file', ETCD_ENDPOINTS: 'http://x:1' }, file })
        .config,
    ).toEqual({ type: 'etcdv3', endpoints: 'http://10.0.0.1:2379', username: 'calico' });
  });

  it('reads a calicoctl config file (YAML or JSON) instead of the environment', () => {
    const configText = `apiVersion: projectcalico.org/v3
kind: CalicoAPIConfig
metadata: {}
spec:
  datastoreType: etcdv3
  etcdEndpoints: http://127.0.0.1:2379
`;
    const env = {
      DATASTORE_TYPE: 'kubernetes',
      ETCD_USERNAME: 'u',
      NETLEDGER_DATASTORE_PATH: '/e',
    };
    expect(
      selectDatastore({ env, file: { text: configText, path: 'c.yaml', explicit: true } }).config,
    ).toEqual({ type: 'etcdv3', endpoints: 'http://127.0.0.1:2379' });
    const json = JSON.stringify({ kind: 'CalicoAPIConfig', spec: { datastoreType: 'file' } });
    expect(
      selectDatastore({ env, file: { text: json, path: 'c.json', explicit: true } }).config,
    ).toEqual({ type: 'file' });
  });

  it.each([
    [{ DATASTORE_TYPE: 'mysql' }, 'DATASTORE_TYPE: unknown datastore type "mysql"'],
    [{ DATASTORE_TYPE: 'etcdv3' }, 'needs etcd endpoints (ETCD_ENDPOINTS)'],
  ])('rejects %j as invalid input', (env, message) => {
    expect(() => selectDatastore({ env })).toThrow(
      expect.objectContaining({
        name: 'CtlError',
        code: 'InvalidInput',
        message: expect.stringContaining(message),
      }),
    );
  });

  it.each([
    ['kind: Other', 'c: expected kind CalicoAPIConfig'],
    ['{ not: [yaml', 'c: not valid YAML or JSON'],
    [
      'kind: CalicoAPIConfig\nspec:\n  etcdEndpoints: [a]',
      'c: spec.etcdEndpoints must be a string',
    ],
    ['kind: CalicoAPIConfig\nspec:\n  datastoreType: etcdv3', '(spec.etcdEndpoints in c)'],
  ])('rejects a bad config file: %j', (configText, message) => {
    expect(() =>
      selectDatastore({ env: {}, file: { text: configText, path: 'c', explicit: true } }),
    ).toThrow(
      expect.objectContaining({ code: 'InvalidInput', message: expect.stringContaining(message) }),
    );
  });
});

describe('toCtlError', () => {
  it.each<[DatastoreConfigErrorCode, string]>([
    ['NotAvailable', 'NotAvailable'],
    ['NoDatastore', 'InvalidInput'],
    ['InvalidValue', 'InvalidInput'],
    ['WrongType', 'InvalidInput'],
    ['Unsupported', 'InvalidInput'],
  ])('%s -> %s', (code, ctl) => {
    expect(toCtlError(new DatastoreConfigError(code, 'm'))).toMatchObject({
      code: ctl,
      message: 'm',
    });
  });

  it('leaves other errors as they are', () => {
    const e = new Error('x');
    expect(toCtlError(e)).toBe(e);
  });
});
