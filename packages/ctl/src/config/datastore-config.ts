import { parse } from 'yaml';
import { defaultDatastorePath } from '@netledger/datastore-file';
import { parseEtcdEndpoints } from '@netledger/datastore-etcd';
import { CtlError } from '../ctl-error.js';

/** Which datastore netledgerctl talks to, and how. */
export type DatastoreConfig =
  | { readonly type: 'file'; readonly path: string }
  | {
      readonly type: 'etcdv3';
      readonly endpoints: string[];
      readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
      readonly username?: string;
      readonly password?: string;
    }
  | { readonly type: 'kubernetes'; readonly kubeconfig?: string };

/** The environment variables read (calicoctl's names, plus `NETLEDGER_DATASTORE_PATH`). */
export type CtlEnv = Readonly<Record<string, string | undefined>>;

/** Inputs of {@link resolveDatastoreConfig}. */
export interface ResolveDatastoreOptions {
  readonly env: CtlEnv;
  /** Text of the `-c` config file (calicoctl's `CalicoAPIConfig`, YAML or JSON), if one was given. */
  readonly configText?: string;
  /** Its path, for error messages. */
  readonly configPath?: string;
  /** For the default file-store path. */
  readonly uid: number | undefined;
  readonly home: string;
}

interface Settings {
  datastoreType?: string;
  etcdEndpoints?: string;
  etcdUsername?: string;
  etcdPassword?: string;
  etcdCACertFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  kubeconfig?: string;
  datastorePath?: string;
}

const nonEmpty = (s: string | undefined): string | undefined => (s ? s : undefined);

function fromEnv(env: CtlEnv): Settings {
  return {
    datastoreType: nonEmpty(env.DATASTORE_TYPE),
    etcdEndpoints: nonEmpty(env.ETCD_ENDPOINTS),
    etcdUsername: nonEmpty(env.ETCD_USERNAME),
    etcdPassword: nonEmpty(env.ETCD_PASSWORD),
    etcdCACertFile: nonEmpty(env.ETCD_CA_CERT_FILE),
    etcdCertFile: nonEmpty(env.ETCD_CERT_FILE),
    etcdKeyFile: nonEmpty(env.ETCD_KEY_FILE),
    kubeconfig: nonEmpty(env.KUBECONFIG),
    datastorePath: nonEmpty(env.NETLEDGER_DATASTORE_PATH),
  };
}

const SPEC_KEYS: readonly (keyof Settings)[] = [
  'datastoreType',
  'etcdEndpoints',
  'etcdUsername',
  'etcdPassword',
  'etcdCACertFile',
  'etcdCertFile',
  'etcdKeyFile',
  'kubeconfig',
  'datastorePath',
];

/** Parses calicoctl's `CalicoAPIConfig` (YAML or JSON); `InvalidInput` naming the file if bad. */
export function parseCalicoApiConfig(text: string, path = 'config file'): Settings {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new CtlError('InvalidInput', `${path}: not valid YAML or JSON: ${firstLine(e)}`);
  }
  const o = doc as { apiVersion?: unknown; kind?: unknown; spec?: unknown } | null;
  if (o === null || typeof o !== 'object' || o.kind !== 'CalicoAPIConfig') {
    throw new CtlError('InvalidInput', `${path}: expected kind CalicoAPIConfig`);
  }
  if (o.apiVersion !== undefined && o.apiVersion !== 'projectcalico.org/v3') {
    throw new CtlError(
      'InvalidInput',
      `${path}: unsupported apiVersion ${JSON.stringify(o.apiVersion)} (projectcalico.org/v3)`,
    );
  }
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  if (typeof spec !== 'object' || Array.isArray(spec)) {
    throw new CtlError('InvalidInput', `${path}: spec must be a mapping`);
  }
  const out: Settings = {};
  for (const [k, v] of Object.entries(spec)) {
    if (!SPEC_KEYS.includes(k as keyof Settings)) continue; // calicoctl ignores what it does not use
    if (typeof v !== 'string') {
      throw new CtlError('InvalidInput', `${path}: spec.${k} must be a string`);
    }
    if (v !== '') out[k as keyof Settings] = v;
  }
  return out;
}

const firstLine = (e: unknown): string =>
  (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';

/**
 * The datastore to use, calicoctl-style: the `-c` file when one is given (it replaces the
 * environment, as calicoctl's does), else `DATASTORE_TYPE` (default `file`), `ETCD_*`,
 * `KUBECONFIG` and `NETLEDGER_DATASTORE_PATH`. Throws `InvalidInput` for an unknown type or bad
 * etcd endpoints, naming the source.
 */
export function resolveDatastoreConfig(options: ResolveDatastoreOptions): DatastoreConfig {
  const fromFile = options.configText !== undefined;
  const s = fromFile
    ? parseCalicoApiConfig(options.configText ?? '', options.configPath)
    : fromEnv(options.env);
  const source = fromFile ? (options.configPath ?? 'config file') : 'DATASTORE_TYPE';
  const type = s.datastoreType ?? 'file';
  switch (type) {
    case 'file':
      return {
        type: 'file',
        path:
          s.datastorePath ??
          defaultDatastorePath(
            { XDG_STATE_HOME: options.env.XDG_STATE_HOME },
            options.uid,
            options.home,
          ),
      };
    case 'etcdv3': {
      if (!s.etcdEndpoints) {
        throw new CtlError(
          'InvalidInput',
          `datastore type etcdv3 needs etcd endpoints (${fromFile ? 'spec.etcdEndpoints' : 'ETCD_ENDPOINTS'})`,
        );
      }
      let endpoints: string[];
      try {
        endpoints = parseEtcdEndpoints(s.etcdEndpoints);
      } catch (e) {
        throw new CtlError('InvalidInput', firstLine(e));
      }
      const tls = {
        ...(s.etcdCACertFile && { ca: s.etcdCACertFile }),
        ...(s.etcdCertFile && { cert: s.etcdCertFile }),
        ...(s.etcdKeyFile && { key: s.etcdKeyFile }),
      };
      return {
        type: 'etcdv3',
        endpoints,
        ...(Object.keys(tls).length > 0 && { tls }),
        ...(s.etcdUsername && { username: s.etcdUsername }),
        ...(s.etcdPassword && { password: s.etcdPassword }),
      };
    }
    case 'kubernetes':
      return { type: 'kubernetes', ...(s.kubeconfig && { kubeconfig: s.kubeconfig }) };
    default:
      throw new CtlError(
        'InvalidInput',
        `${source}: unknown datastore type ${JSON.stringify(type)} (file, etcdv3 or kubernetes)`,
      );
  }
}
