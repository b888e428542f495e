/** A store setting, by the name calicoctl's `CalicoAPIConfig` gives it (plus netledger's own). */
export type SettingKey =
  | 'datastoreType'
  | 'datastorePath'
  | 'etcdEndpoints'
  | 'etcdDiscoverySrv'
  | 'etcdAuthority'
  | 'etcdScheme'
  | 'etcdCACertFile'
  | 'etcdCertFile'
  | 'etcdKeyFile'
  | 'etcdUsername'
  | 'etcdPassword'
  | 'etcdTransport'
  | 'kubeconfig'
  | 'calicoAPIGroup';

/** Setting values by key; an absent key is unset. */
export type Settings = Readonly<Partial<Record<SettingKey, string>>>;

/** The settings one place holds (the environment, a netconf, a config file). */
export interface SettingsSource {
  /** What it sets: never an empty string (an empty value is unset, as Calico reads it). */
  readonly values: Settings;
  /**
   * What the place calls each setting it can hold (`etcd_endpoints`, `ETCD_ENDPOINTS`,
   * `spec.etcdEndpoints in c.yaml`), for messages; a setting it has no name for it never holds.
   */
  readonly names: Settings;
}

/** A source holding what `valueOf` answers for each setting `names` names, empty strings left out. */
export function settingsFrom(
  names: Settings,
  valueOf: (name: string, key: SettingKey) => string | undefined,
): SettingsSource {
  const values: Partial<Record<SettingKey, string>> = {};
  for (const [key, name] of Object.entries(names) as [SettingKey, string][]) {
    const v = valueOf(name, key);
    if (v !== undefined && v !== '') values[key] = v;
  }
  return { values, names };
}
