import { createIpamClient, formatIpamReport } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { selectDatastore, toCtlError } from '../config/datastore-config.js';
import type { SelectedDatastore } from '../config/datastore-config.js';
import type { CommandContext, CommandSpec, CtlIo, FlagValues, Store } from './command-spec.js';
import { createProgress } from './progress-reporter.js';
import { readConfigFile } from './read-config-file.js';
import { createReadInput } from './read-input.js';

/** A command's context and what it opened. */
export interface OpenedContext {
  readonly ctx: CommandContext;
  /** The datastore the command opened through `ctx.store()`, if it did. */
  opened(): Datastore | undefined;
}

/**
 * The context `spec.run` gets: input reading, progress on stderr, the datastore configuration
 * (selected once, from `--config` or the default files and the environment) and the store
 * (opened once, as `spec.store` says, with an IPAM client that reports best-effort failures on
 * stderr as warnings). The caller closes what `opened()` returns.
 */
export function createCommandContext(o: {
  io: CtlIo;
  spec: CommandSpec;
  flags: FlagValues;
}): OpenedContext {
  const { io, spec, flags } = o;
  const readInput = createReadInput(io);
  const configPath = typeof flags.config === 'string' ? flags.config : undefined;
  let selected: SelectedDatastore | undefined;
  let datastore: Datastore | undefined;
  let store: Store | undefined;
  const datastoreConfig = async (): Promise<SelectedDatastore> => {
    if (selected) return selected;
    const file = await readConfigFile(io, { configPath, readInput });
    selected = selectDatastore({ env: io.env, ...(file && { file }) });
    return selected;
  };
  const openStore = async (): Promise<Store> => {
    if (store) return store;
    const { config } = await datastoreConfig();
    try {
      datastore = await io.openDatastore(config, {
        mayCreate: spec.store === 'write',
        readOnly: spec.store === 'read-only',
      });
    } catch (e) {
      throw toCtlError(e);
    }
    store = {
      datastore,
      ipam: createIpamClient({
        datastore,
        ...(io.clock && { clock: io.clock }),
        ...(io.random && { random: io.random }),
        // A best-effort step that failed leaves the command's outcome as it is: said, not hidden.
        report: (r) => io.stderr(`Warning: ${formatIpamReport(r)}\n`),
      }),
    };
    return store;
  };
  const now = (): number => io.clock?.now() ?? Date.now();
  const ctx: CommandContext = {
    io,
    readInput,
    progress: (text) => {
      if (io.stderrIsTty) io.stderr(text);
    },
    startProgress: (label) =>
      createProgress({ label, write: (t) => io.stderr(t), tty: io.stderrIsTty, now }),
    datastoreConfig,
    store: openStore,
  };
  return { ctx, opened: () => datastore };
}
