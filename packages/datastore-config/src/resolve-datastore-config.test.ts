import { describe, expect, it } from 'vitest';
import type { DatastoreConfig } from './datastore-config.js';
import type { DatastoreConfigErrorCode } from './datastore-config-error.js';
import { readCalicoApiConfigSettings } from './read-calico-api-config-settings.js';
import { readEnvSettings } from './read-env-settings.js';
import { readNetConfSettings } from './read-net-conf-settings.js';
import { resolveDatastoreConfig } from './resolve-datastore-config.js';

type Obj = Record<string, unknown>;
type Env = Record<string, string>;

/** The CNI plugin's sources: the netconf (`ipam`, then the top level), then the environment. */
const cni = (ipam: Obj, env: Env = {}, top: Obj = {}): DatastoreConfig =>
  resolveDatastoreConfig([readNetConfSettings({ top, ipam }), readEnvSettings(env)]);
/** netledgerctl without `-c`: the environment alone. */
const ctlEnv = (env: Env): DatastoreConfig => resolveDatastoreConfig([readEnvSettings(env)]);
/** netledgerctl with `-c c.yaml`: the file alone. */
const ctlFile = (spec: Obj): DatastoreConfig =>
  resolveDatastoreConfig([
    readCalicoApiConfigSettings(
      { apiVersion: 'projectcalico.org/v3', kind: 'CalicoAPIConfig', spec },
      'c.yaml',
    ),
  ]);

const etcd = (over: Obj = {}): Obj => ({
  datastore_type: 'etcdv3',
  etcd_endpoints: 'http://e:2379',
  ...over,
});

describe('resolveDatastoreConfig: CNI netconf and environment', () => {
  it.each<[string, () => DatastoreConfig, DatastoreConfig]>([
    ['nothing set: the file store at its default place', () => cni({}), { type: 'file' }],
    ['datastore_path', () => cni({ datastore_path: '/d.json' }), { type: 'file', path: '/d.json' }],
    [
      'NETLEDGER_DATASTORE_PATH when the netconf names no path',
      () => cni({}, { NETLEDGER_DATASTORE_PATH: '/env.json' }),
      { type: 'file', path: '/env.json' },
    ],
    [
      'datastore_path wins over NETLEDGER_DATASTORE_PATH',
      () => cni({ datastore_path: '/d.json' }, { NETLEDGER_DATASTORE_PATH: '/env.json' }),
      { type: 'file', path: '/d.json' },
    ],
    [
      'top-level keys (Calico layout)',
      () => cni({}, {}, etcd()),
      { type: 'etcdv3', endpoints: 'http://e:2379' },
    ],
    [
      'ipam keys win over top-level ones, key by key',
      () => cni({ etcd_endpoints: 'http://inner:2379' }, {}, etcd({ etcd_username: 'top' })),
      { type: 'etcdv3', endpoints: 'http://inner:2379', username: 'top' },
    ],
    [
      'etcd TLS files and user',
      () =>
        cni(
          etcd({
            etcd_endpoints: 'https://e:2379',
            etcd_ca_cert_file: '/ca',
            etcd_cert_file: '/c',
            etcd_key_file: '/k',
            etcd_username: 'u',
            etcd_password: 'p',
          }),
        ),
      {
        type: 'etcdv3',
        endpoints: 'https://e:2379',
        tls: { ca: '/ca', cert: '/c', key: '/k' },
        username: 'u',
        password: 'p',
      },
    ],
    [
      'etcd_transport grpc',
      () => cni(etcd({ etcd_transport: 'grpc' })),
      { type: 'etcdv3', endpoints: 'http://e:2379', transport: 'grpc' },
    ],
    [
      'etcd_transport http, named',
      () => cni(etcd({ etcd_transport: 'http' })),
      { type: 'etcdv3', endpoints: 'http://e:2379', transport: 'http' },
    ],
    [
      'etcd_authority + etcd_scheme',
      () => cni({ datastore_type: 'etcdv3', etcd_authority: 'e:2379', etcd_scheme: 'https' }),
      { type: 'etcdv3', endpoints: 'https://e:2379' },
    ],
    [
      'etcd_authority alone is http',
      () => cni({ datastore_type: 'etcdv3', etcd_authority: 'e:2379' }),
      { type: 'etcdv3', endpoints: 'http://e:2379' },
    ],
    [
      'ETCD_ENDPOINTS wins over etcd_authority',
      () =>
        cni({ datastore_type: 'etcdv3', etcd_authority: 'a:1' }, { ETCD_ENDPOINTS: 'http://b:2' }),
      { type: 'etcdv3', endpoints: 'http://b:2' },
    ],
    [
      "libcalico's environment variables when the netconf is silent",
      () =>
        cni(
          {},
          {
            DATASTORE_TYPE: 'etcdv3',
            ETCD_ENDPOINTS: 'http://a:1',
            ETCD_CA_CERT_FILE: '/ca',
            ETCD_CERT_FILE: '/c',
            ETCD_KEY_FILE: '/k',
            ETCD_USERNAME: 'u',
            ETCD_PASSWORD: 'p',
          },
        ),
      {
        type: 'etcdv3',
        endpoints: 'http://a:1',
        tls: { ca: '/ca', cert: '/c', key: '/k' },
        username: 'u',
        password: 'p',
      },
    ],
    [
      'datastore_type wins over DATASTORE_TYPE',
      () => cni({ datastore_type: 'file' }, { DATASTORE_TYPE: 'etcdv3' }),
      { type: 'file' },
    ],
    [
      'each key falls back on its own: the netconf type, the environment endpoints',
      () =>
        cni(
          { datastore_type: 'etcdv3', etcd_username: 'n' },
          { ETCD_ENDPOINTS: 'http://a:1', ETCD_USERNAME: 'e' },
        ),
      { type: 'etcdv3', endpoints: 'http://a:1', username: 'n' },
    ],
    [
      'empty strings are unset, in the netconf and the environment',
      () =>
        cni(
          { datastore_type: '', etcd_endpoints: '' },
          { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: 'http://a:1', ETCD_USERNAME: '' },
        ),
      { type: 'etcdv3', endpoints: 'http://a:1' },
    ],
    [
      'kubernetes with a top-level kubernetes.kubeconfig (Calico layout)',
      () =>
        cni(
          {},
          { KUBECONFIG: '/env' },
          { datastore_type: 'kubernetes', kubernetes: { kubeconfig: '/k' } },
        ),
      { type: 'kubernetes', kubeconfig: '/k' },
    ],
    [
      'kubernetes.kubeconfig under ipam wins over the top level',
      () =>
        cni(
          { kubernetes: { kubeconfig: '/inner' } },
          {},
          { datastore_type: 'kubernetes', kubernetes: { kubeconfig: '/top' } },
        ),
      { type: 'kubernetes', kubeconfig: '/inner' },
    ],
    [
      'kubernetes with KUBECONFIG when the netconf names none',
      () => cni({ datastore_type: 'kubernetes', kubernetes: {} }, { KUBECONFIG: '/env' }),
      { type: 'kubernetes', kubeconfig: '/env' },
    ],
    [
      'kubernetes with no kubeconfig at all: in-cluster',
      () => cni({}, { DATASTORE_TYPE: 'kubernetes' }),
      { type: 'kubernetes' },
    ],
  ])('%s', (_, resolve, expected) => {
    expect(resolve()).toEqual(expected);
  });
});

describe('resolveDatastoreConfig: netledgerctl environment and -c file', () => {
  it.each<[string, () => DatastoreConfig, DatastoreConfig]>([
    ['nothing set', () => ctlEnv({}), { type: 'file' }],
    [
      'NETLEDGER_DATASTORE_PATH',
      () => ctlEnv({ NETLEDGER_DATASTORE_PATH: '/x/ds.json' }),
      { type: 'file', path: '/x/ds.json' },
    ],
    [
      'etcd from the environment',
      () =>
        ctlEnv({
          DATASTORE_TYPE: 'etcdv3',
          ETCD_ENDPOINTS: 'https://a:2379, https://b:2379',
          ETCD_CA_CERT_FILE: '/ca.pem',
          ETCD_CERT_FILE: '/c.pem',
          ETCD_KEY_FILE: '/k.pem',
          ETCD_USERNAME: 'u',
          ETCD_PASSWORD: 'p',
        }),
      {
        type: 'etcdv3',
        endpoints: 'https://a:2379, https://b:2379',
        tls: { ca: '/ca.pem', cert: '/c.pem', key: '/k.pem' },
        username: 'u',
        password: 'p',
      },
    ],
    [
      'kubernetes with KUBECONFIG',
      () => ctlEnv({ DATASTORE_TYPE: 'kubernetes', KUBECONFIG: '/k' }),
      { type: 'kubernetes', kubeconfig: '/k' },
    ],
    [
      "kubernetes with Calico's CALICO_API_GROUP",
      () => ctlEnv({ DATASTORE_TYPE: 'kubernetes', CALICO_API_GROUP: 'projectcalico.org/v3' }),
      { type: 'kubernetes', calicoApiGroup: 'projectcalico.org/v3' },
    ],
    [
      'a CalicoAPIConfig naming its calicoAPIGroup',
      () => ctlFile({ datastoreType: 'kubernetes', calicoAPIGroup: 'crd.projectcalico.org/v1' }),
      { type: 'kubernetes', calicoApiGroup: 'crd.projectcalico.org/v1' },
    ],
    [
      'a CalicoAPIConfig for etcd',
      () =>
        ctlFile({
          datastoreType: 'etcdv3',
          etcdEndpoints: 'http://127.0.0.1:2379',
          etcdCACertFile: '/ca',
        }),
      { type: 'etcdv3', endpoints: 'http://127.0.0.1:2379', tls: { ca: '/ca' } },
    ],
    [
      'a CalicoAPIConfig for the file store (unknown spec keys ignored, empty ones unset)',
      () =>
        ctlFile({ datastoreType: 'file', datastorePath: '/d.json', etcdEndpoints: '', felix: 1 }),
      { type: 'file', path: '/d.json' },
    ],
    [
      'a CalicoAPIConfig for kubernetes',
      () => ctlFile({ datastoreType: 'kubernetes', kubeconfig: '/k' }),
      { type: 'kubernetes', kubeconfig: '/k' },
    ],
  ])('%s', (_, resolve, expected) => {
    expect(resolve()).toEqual(expected);
  });
});

describe('resolveDatastoreConfig errors name the setting as its source does', () => {
  it.each<[string, () => unknown, DatastoreConfigErrorCode, string]>([
    [
      'an unknown datastore_type',
      () => cni({ datastore_type: 'consul' }),
      'InvalidValue',
      'datastore_type: unknown datastore type "consul" (file, etcdv3 or kubernetes)',
    ],
    [
      'an unknown DATASTORE_TYPE under a netconf',
      () => cni({}, { DATASTORE_TYPE: 'consul' }),
      'InvalidValue',
      'DATASTORE_TYPE: unknown datastore type "consul" (file, etcdv3 or kubernetes)',
    ],
    [
      'an unknown DATASTORE_TYPE (ctl)',
      () => ctlEnv({ DATASTORE_TYPE: 'mysql' }),
      'InvalidValue',
      'DATASTORE_TYPE: unknown datastore type "mysql" (file, etcdv3 or kubernetes)',
    ],
    [
      'an unknown spec.datastoreType',
      () => ctlFile({ datastoreType: 'mysql' }),
      'InvalidValue',
      'spec.datastoreType in c.yaml: unknown datastore type "mysql" (file, etcdv3 or kubernetes)',
    ],
    [
      'etcd without endpoints (netconf)',
      () => cni({ datastore_type: 'etcdv3' }),
      'InvalidValue',
      'datastore type etcdv3 needs etcd endpoints (etcd_endpoints or ETCD_ENDPOINTS)',
    ],
    [
      'etcd without endpoints (ctl environment)',
      () => ctlEnv({ DATASTORE_TYPE: 'etcdv3' }),
      'InvalidValue',
      'datastore type etcdv3 needs etcd endpoints (ETCD_ENDPOINTS)',
    ],
    [
      'etcd without endpoints (ctl file)',
      () => ctlFile({ datastoreType: 'etcdv3' }),
      'InvalidValue',
      'datastore type etcdv3 needs etcd endpoints (spec.etcdEndpoints in c.yaml)',
    ],
    [
      'an unknown etcd_transport',
      () => cni(etcd({ etcd_transport: 'h2' })),
      'InvalidValue',
      'etcd_transport must be "http" or "grpc", not "h2"',
    ],
    [
      'etcd_discovery_srv',
      () => cni({ datastore_type: 'etcdv3', etcd_discovery_srv: 'example.com' }),
      'Unsupported',
      'etcd_discovery_srv is not supported: list the members in etcd_endpoints',
    ],
    [
      'datastore_type not a string',
      () => cni({ datastore_type: 3 }),
      'WrongType',
      'datastore_type must be a JSON string, got number',
    ],
    [
      'etcd_endpoints as a list',
      () => cni(etcd({ etcd_endpoints: ['http://e:2379'] })),
      'WrongType',
      'etcd_endpoints must be a JSON string, got array',
    ],
    [
      'kubernetes not an object',
      () => cni({}, {}, { kubernetes: '/k' }),
      'WrongType',
      'kubernetes must be a JSON object, got string',
    ],
    [
      'kubernetes.kubeconfig not a string',
      () => cni({ kubernetes: { kubeconfig: true } }),
      'WrongType',
      'kubernetes.kubeconfig must be a JSON string, got boolean',
    ],
  ])('%s', (_, resolve, code, message) => {
    expect(resolve).toThrow(
      expect.objectContaining({ name: 'DatastoreConfigError', code, message }),
    );
  });
});
