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

/** Inputs of {@link selectDatastore}. */
export interface SelectDatastoreOptions {
  readonly env: CtlEnv;
  /** Text of the `-c` config file (calicoctl's `CalicoAPIConfig`, YAML or JSON), if one was given. */
  readonly configText?: string;
  /** Its path, for error messages. */
  readonly configPath?: string;
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
 * The datastore to use, calicoctl-style: the `-c` file when one is given (it replaces the
 * environment, as calicoctl's does), else `DATASTORE_TYPE` (default `file`), `ETCD_*`,
 * `KUBECONFIG` and `NETLEDGER_DATASTORE_PATH` (read by `@netledger/datastore-config`). Throws
 * `InvalidInput` naming the file or the variable for a bad file or an unknown type or etcd
 * without endpoints.
 */
export function selectDatastore(options: SelectDatastoreOptions): DatastoreConfig {
  const path = options.configPath ?? 'config file';
  try {
    const source =
      options.configText === undefined
        ? readEnvSettings(options.env)
        : readCalicoApiConfigSettings(decode(options.configText, path), path);
    return resolveDatastoreConfig([source]);
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
