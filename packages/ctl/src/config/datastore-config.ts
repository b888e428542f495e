import { parse } from 'yaml';
import {
  isDatastoreConfigError,
  readCalicoApiConfigSettings,
  readEnvSettings,
  resolveDatastoreConfig,
} from '@netledger/datastore-config';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { CtlError } from '../ctl-error.js';

/** The environment variables read (calicoctl's names, plus `NETLEDGER_DATASTORE_PATH`). */
export type CtlEnv = Readonly<Record<string, string | undefined>>;

/**
 * The config files netledgerctl reads when no `-c` is given, the first that exists:
 * netledgerctl's own, then calicoctl's default (`/etc/calico/calicoctl.cfg`), so a host set up
 * for calicoctl works as it is.
 */
export const DEFAULT_CONFIG_FILES: readonly string[] = [
  '/etc/netledger/netledgerctl.cfg',
  '/etc/calico/calicoctl.cfg',
];

/** A config file's text and where it came from. */
export interface ConfigFile {
  readonly text: string;
  readonly path: string;
  /** Given with `-c` (it replaces the environment), or found at a default path (under it). */
  readonly explicit: boolean;
}

/** Inputs of {@link selectDatastore}. */
export interface SelectDatastoreOptions {
  readonly env: CtlEnv;
  /** The config file (calicoctl's `CalicoAPIConfig`, YAML or JSON), if one was given or found. */
  readonly file?: ConfigFile;
}

/** The datastore chosen, and what chose it. */
export interface SelectedDatastore {
  readonly config: DatastoreConfig;
  /**
   * `file`: the config file; `environment`: a store variable; `default`: nothing configured (the
   * user's default file store).
   */
  readonly source: 'file' | 'environment' | 'default';
  /** The config file read, when one was. */
  readonly file?: string;
}

const firstLine = (e: unknown): string =>
  (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';

/**
 * A store configuration error as the CLI reports it: `NotAvailable` stays so, every other one is
 * `InvalidInput`. Anything else is returned as it is.
 */
export function toCtlError(e: unknown): unknown {
  if (!isDatastoreConfigError(e)) return e;
  return new CtlError(e.code === 'NotAvailable' ? 'NotAvailable' : 'InvalidInput', e.message, {
    cause: e,
  });
}

/**
 * The datastore to use, calicoctl-style. A `-c` file replaces the environment, as calicoctl's
 * does. A default config file is read under the environment: each setting `DATASTORE_TYPE`,
 * `ETCD_*`, `KUBECONFIG`, `NETLEDGER_DATASTORE_PATH` (read by `@netledger/datastore-config`) that
 * is set wins over the file's. Without a file, the environment alone (type `file` by default).
 * Throws `InvalidInput` naming the file or the variable for a bad file or an unknown type or etcd
 * without endpoints.
 */
export function selectDatastore(options: SelectDatastoreOptions): SelectedDatastore {
  const { env, file } = options;
  try {
    const envSource = readEnvSettings(env);
    const fileSource = file && readCalicoApiConfigSettings(decode(file.text, file.path), file.path);
    const sources = !fileSource
      ? [envSource]
      : file.explicit
        ? [fileSource]
        : [envSource, fileSource];
    const config = resolveDatastoreConfig(sources);
    if (file) return { config, source: 'file', file: file.path };
    const source = Object.keys(envSource.values).length > 0 ? 'environment' : 'default';
    return { config, source };
  } catch (e) {
    throw toCtlError(e);
  }
}

function decode(text: string, path: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    throw new CtlError('InvalidInput', `${path}: not valid YAML or JSON: ${firstLine(e)}`);
  }
}
