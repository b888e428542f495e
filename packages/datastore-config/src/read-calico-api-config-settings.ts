import { DatastoreConfigError } from './datastore-config-error.js';
import type { SettingKey, SettingsSource } from './settings-source.js';
import { settingsFrom } from './settings-source.js';

/** The `spec` keys read, as calicoctl spells them, plus netledger's `datastorePath`. */
const SPEC_KEYS: readonly SettingKey[] = [
  'datastoreType',
  'etcdEndpoints',
  'etcdUsername',
  'etcdPassword',
  'etcdCACertFile',
  'etcdCertFile',
  'etcdKeyFile',
  'kubeconfig',
  'calicoAPIGroup',
  'datastorePath',
];

const invalid = (message: string): DatastoreConfigError =>
  new DatastoreConfigError('InvalidValue', message);

/**
 * The store settings of calicoctl's `CalicoAPIConfig` (netledgerctl's `-c` file), from its
 * decoded YAML or JSON document: `spec.datastoreType`, `etcdEndpoints`, `etcdUsername`,
 * `etcdPassword`, `etcdCACertFile`, `etcdCertFile`, `etcdKeyFile`, `kubeconfig`, `calicoAPIGroup`,
 * `datastorePath`.
 * Other spec keys are ignored, as calicoctl ignores what it does not use; an empty string is
 * unset. Throws `InvalidValue` naming `path` for another kind or apiVersion or a spec that is not
 * a mapping, `WrongType` for a spec value that is not a string.
 */
export function readCalicoApiConfigSettings(doc: unknown, path = 'config file'): SettingsSource {
  const o = doc as { apiVersion?: unknown; kind?: unknown; spec?: unknown } | null;
  if (o === null || typeof o !== 'object' || o.kind !== 'CalicoAPIConfig') {
    throw invalid(`${path}: expected kind CalicoAPIConfig`);
  }
  if (o.apiVersion !== undefined && o.apiVersion !== 'projectcalico.org/v3') {
    throw invalid(
      `${path}: unsupported apiVersion ${JSON.stringify(o.apiVersion)} (projectcalico.org/v3)`,
    );
  }
  const spec = o.spec ?? {};
  if (typeof spec !== 'object' || Array.isArray(spec)) {
    throw invalid(`${path}: spec must be a mapping`);
  }
  const names = Object.fromEntries(SPEC_KEYS.map((k) => [k, `spec.${k} in ${path}`]));
  return settingsFrom(names, (_, key) => {
    const v = (spec as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'string') return v;
    throw new DatastoreConfigError('WrongType', `${path}: spec.${key} must be a string`);
  });
}
