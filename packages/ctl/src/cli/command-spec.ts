import type { ParseArgsConfig } from 'node:util';
import type { DatastoreConfig, RepairOptions, RepairReport } from '@netledger/datastore-config';
import type { Clock, Datastore, IpamClient, Random } from '@netledger/ipam-core';
import type { CtlEnv, SelectedDatastore } from '../config/datastore-config.js';
import type { KubeReader } from '../commands/kube-reader.js';
import type { BoundedReadOptions } from './read-bounded.js';
import type { Progress } from './progress-reporter.js';

/** What the CLI needs from its process: argv, environment, streams, files and a store opener. */
export interface CtlIo {
  readonly argv: readonly string[];
  readonly env: CtlEnv;
  /**
   * The config files read when no `-c` is given, first found wins (the app passes
   * `DEFAULT_CONFIG_FILES`: netledgerctl's own, then Calico's `/etc/calico/calicoctl.cfg`); a
   * missing one is skipped, an unreadable one is an error naming it.
   */
  readonly defaultConfigFiles: readonly string[];
  /** The commit the binary was built from (`version`); `unknown` when not given. */
  readonly commit?: string;
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Reads a file as UTF-8. With `maxBytes`, reads no more than `maxBytes + 1` bytes and rejects
   * with an error whose `code` is `EFBIG` when the file holds more (`readTextFile` does this).
   */
  readFile(path: string, options?: BoundedReadOptions): Promise<string>;
  writeFile(path: string, text: string, mode?: number): Promise<void>;
  /** Reads stdin to its end; with `maxBytes`, as {@link CtlIo.readFile} does. */
  readStdin(options?: BoundedReadOptions): Promise<string>;
  /** Whether stderr is a terminal: progress is a bar there, and periodic lines otherwise. */
  readonly stderrIsTty: boolean;
  /**
   * Opens the selected store: the app's `@netledger/datastore-config` opener (its defaults, the
   * store packages it installs). `mayCreate` is false for commands that must not create a file
   * store; `readOnly` is true for commands that only read (a file store is then opened without
   * its lock, so a read-only one opens); a `DatastoreConfigError` it throws is reported as a
   * `CtlError`.
   */
  openDatastore(
    config: DatastoreConfig,
    options: { readonly mayCreate: boolean; readonly readOnly?: boolean },
  ): Promise<Datastore>;
  /**
   * The Kubernetes API behind `datastore` when it is a Kubernetes store (the opener's
   * `kubernetesReaderOf`), else undefined.
   */
  kubernetesReaderOf(datastore: Datastore): Promise<KubeReader | undefined>;
  /**
   * Repairs the selected store (the opener's `repair`): a file store at the path `openDatastore`
   * would use, its failed cleanups told as the opener's file warnings; another store type is
   * refused, `DatastoreConfigError` `Unsupported`.
   */
  repairDatastore(config: DatastoreConfig, options: RepairOptions): Promise<RepairReport>;
  readonly clock?: Clock;
  readonly random?: Random;
}

/** The opened datastore and its IPAM client. */
export interface Store {
  readonly datastore: Datastore;
  readonly ipam: IpamClient;
}

/** What a command's `run` gets. */
export interface CommandContext {
  readonly io: CtlIo;
  /** Opens the datastore (once); `mayCreate` comes from the command's `store` setting. */
  store(): Promise<Store>;
  /**
   * Reads a file, or stdin for `-`; `InvalidInput` naming the file if unreadable, or if it holds
   * more than `maxBytes` (checked while reading, before anything parses it).
   */
  readInput(path: string, options?: BoundedReadOptions): Promise<string>;
  /** Writes progress marks to stderr when it is a terminal (`ipam release`'s dots). */
  progress(text: string): void;
  /**
   * A progress display on stderr for a long operation: a bar on a terminal, else a line every few
   * seconds once it has run that long (a quick run prints nothing).
   */
  startProgress(label: string): Progress;
  /**
   * The datastore configuration: the `-c` file (which replaces the environment, as calicoctl's
   * does), else the environment over the first default config file found, else the environment.
   * `InvalidInput` naming the file or the setting when it is bad.
   */
  datastoreConfig(): Promise<SelectedDatastore>;
}

export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** Parsed flag values (strings, booleans, or arrays of strings for `multiple`). */
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** One command: its words, flags, help and implementation. */
export interface CommandSpec {
  readonly path: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** The usage lines shown by `--help` (after `netledgerctl `). */
  readonly usage: string;
  /** The flags, one line each (every flag in `options` is described), and notes. */
  readonly help?: string;
  /** One example, a full command line (`netledgerctl ippool list -o wide`), for `--help`. */
  readonly example: string;
  readonly options: OptionsConfig;
  /** Allowed number of positional arguments. */
  readonly positionals?: { readonly min: number; readonly max: number };
  /**
   * `read-only`: the store must exist, and the command only reads it (a file store is opened
   * read-only: it works in a read-only directory); `read`: the store must exist; `write`: it may
   * be created; `none`: no store.
   */
  readonly store: 'read-only' | 'read' | 'write' | 'none';
  run(ctx: CommandContext, flags: FlagValues, args: readonly string[]): Promise<CommandOutput>;
}

/** What a command prints; a non-zero `exitCode` reports a problem found (not an error). */
interface CommandOutput {
  readonly text: string;
  readonly exitCode?: number;
}

/** Flag helpers. */
export const str = (f: FlagValues, name: string): string | undefined => {
  const v = f[name];
  return typeof v === 'string' ? v : undefined;
};
export const bool = (f: FlagValues, name: string): boolean => f[name] === true;
export const list = (f: FlagValues, name: string): string[] => {
  const v = f[name];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : [];
};
