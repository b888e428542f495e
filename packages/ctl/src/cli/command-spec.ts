import type { ParseArgsConfig } from 'node:util';
import type { DatastoreConfig, RepairOptions, RepairReport } from '@netledger/datastore-config';
import type { Clock, Datastore, IpamClient, Random } from '@netledger/ipam-core';
import type { CtlEnv } from '../config/datastore-config.js';
import type { KubeReader } from '../commands/ipam-check.js';
import type { BoundedReadOptions } from './read-bounded.js';

/** What the CLI needs from its process: argv, environment, streams, files and a store opener. */
export interface CtlIo {
  readonly argv: readonly string[];
  readonly env: CtlEnv;
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
  /** Progress goes to stderr only when it is a terminal. */
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
  /** Writes progress to stderr when it is a terminal. */
  progress(text: string): void;
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
  /** Extra help text (flag descriptions). */
  readonly help?: string;
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
export interface CommandOutput {
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
