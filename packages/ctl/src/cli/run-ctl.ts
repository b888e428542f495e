import { parseArgs } from 'node:util';
import { createIpamClient, formatIpamReport, isIpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { selectDatastore, toCtlError } from '../config/datastore-config.js';
import type { ConfigFile, SelectedDatastore } from '../config/datastore-config.js';
import { CtlError, isCtlError } from '../ctl-error.js';
import { COMMANDS } from './commands.js';
import type { CommandContext, CommandSpec, CtlIo, OptionsConfig, Store } from './command-spec.js';
import type { BoundedReadOptions } from './read-bounded.js';
import { createProgress } from './progress-reporter.js';

const MIB = 1024 * 1024;

const GLOBAL_OPTIONS: OptionsConfig = {
  config: { type: 'string', short: 'c' },
  'allow-version-mismatch': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

const GLOBAL_HELP = `Options for every command:
  -c, --config FILE            calicoctl-style CalicoAPIConfig (YAML or JSON) naming the datastore
                               (default: /etc/netledger/netledgerctl.cfg, else
                               /etc/calico/calicoctl.cfg, when one exists)
      --allow-version-mismatch accepted for calicoctl compatibility (no effect)
  -h, --help                   this help
Datastore: DATASTORE_TYPE=file|etcdv3|kubernetes (default file), NETLEDGER_DATASTORE_PATH,
  ETCD_ENDPOINTS, ETCD_CA_CERT_FILE, ETCD_CERT_FILE, ETCD_KEY_FILE, ETCD_USERNAME,
  ETCD_PASSWORD, KUBECONFIG; a variable that is set wins over a default config file, and a -c
  file replaces them all.
`;

function topUsage(prefix: readonly string[]): string {
  const cmds = COMMANDS.filter((c) => prefix.every((w, i) => c.path[i] === w));
  const width = Math.max(...cmds.map((c) => c.path.join(' ').length));
  return (
    `usage: netledgerctl ${prefix.length > 0 ? prefix.join(' ') + ' ' : ''}<command> [options]\n\ncommands:\n` +
    cmds.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}\n`).join('') +
    `\nRun 'netledgerctl <command> --help' for a command's options.\n`
  );
}

function commandHelp(spec: CommandSpec): string {
  return (
    `usage: netledgerctl ${spec.usage}\n\n${spec.summary}\n` +
    (spec.help ? `\nOptions:\n${spec.help.trimEnd()}\n` : '') +
    `\nExample:\n  ${spec.example}\n` +
    `\n${GLOBAL_HELP}`
  );
}

/** The command named by the leading words of argv, and the rest of argv. */
function findCommand(argv: readonly string[]): {
  spec?: CommandSpec;
  words: string[];
  rest: string[];
} {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  let best: CommandSpec | undefined;
  for (const c of COMMANDS) {
    if (c.path.length <= words.length && c.path.every((w, i) => words[i] === w)) {
      if (!best || c.path.length > best.path.length) best = c;
    }
  }
  if (!best) return { words, rest: [] };
  return { spec: best, words, rest: argv.slice(best.path.length) };
}

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

/** The message and exit code for an error: 2 for usage errors, 1 for everything else. */
function describeError(e: unknown): { message: string; exitCode: number } {
  if (isCtlError(e)) return { message: oneLine(e.message), exitCode: e.code === 'Usage' ? 2 : 1 };
  if (isIpamError(e)) return { message: oneLine(e.message), exitCode: 1 };
  if (e instanceof Error) return { message: oneLine(e.message), exitCode: 1 };
  return { message: oneLine(String(e)), exitCode: 1 };
}

/**
 * Runs netledgerctl for `io.argv`: finds the command, parses its flags strictly (an unknown flag
 * or a missing value is a usage error), opens the datastore if the command needs one, runs it and
 * prints its output. Errors print one line, `Error: <message>`, on stderr. Returns the exit code:
 * 0 success, 1 failure, 2 usage; a command may return another code for problems it found.
 */
export async function runCtl(io: CtlIo): Promise<number> {
  const argv = io.argv;
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(topUsage([]));
    return argv.length === 0 ? 2 : 0;
  }
  const { spec, words, rest } = findCommand(
    argv[0] === '--version' ? ['version', ...argv.slice(1)] : argv,
  );
  if (!spec) {
    const group = COMMANDS.some((c) => words.length > 0 && words.every((w, i) => c.path[i] === w));
    if (group && (argv.includes('--help') || argv.includes('-h'))) {
      io.stdout(topUsage(words));
      return 0;
    }
    const what = words.length > 0 ? words.join(' ') : argv[0]!;
    io.stderr(
      `Error: unknown command ${JSON.stringify(what)} (run 'netledgerctl${group ? ' ' + words.join(' ') : ''} --help')\n`,
    );
    return 2;
  }
  let datastore: Datastore | undefined;
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        options: { ...GLOBAL_OPTIONS, ...spec.options },
        allowPositionals: true,
        strict: true,
      });
    } catch (e) {
      throw new CtlError(
        'Usage',
        `${(e as Error).message.split('\n')[0]!.replace(/^(Unknown option '[^']*')\..*$/, '$1')} (see 'netledgerctl ${spec.path.join(' ')} --help')`,
      );
    }
    const flags = parsed.values;
    if (flags.help === true) {
      io.stdout(commandHelp(spec));
      return 0;
    }
    const args = parsed.positionals;
    const { min, max } = spec.positionals ?? { min: 0, max: 0 };
    if (args.length < min || args.length > max) {
      throw new CtlError(
        'Usage',
        args.length > max
          ? `unexpected argument ${JSON.stringify(args[max])} (usage: netledgerctl ${spec.usage.split('\n')[0]})`
          : `missing argument (usage: netledgerctl ${spec.usage.split('\n')[0]})`,
      );
    }
    const readInput = async (path: string, options: BoundedReadOptions = {}): Promise<string> => {
      const { maxBytes } = options;
      const tooLarge = (): CtlError =>
        new CtlError(
          'InvalidInput',
          `${path === '-' ? 'stdin' : path} is larger than ${maxBytes} bytes (${maxBytes! / MIB} MiB), the limit for this input: refusing to parse it`,
        );
      let text: string;
      try {
        text = path === '-' ? await io.readStdin(options) : await io.readFile(path, options);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'EFBIG' && maxBytes !== undefined) throw tooLarge();
        throw new CtlError('InvalidInput', `cannot read ${path}: ${code ?? (e as Error).message}`);
      }
      // Also for a reader that does not stop at the bound: nothing larger is parsed.
      if (maxBytes !== undefined && Buffer.byteLength(text) > maxBytes) throw tooLarge();
      return text;
    };
    let opened: Store | undefined;
    let selected: SelectedDatastore | undefined;
    const configPath = typeof flags.config === 'string' ? flags.config : undefined;
    const configFile = async (): Promise<ConfigFile | undefined> => {
      if (configPath !== undefined) {
        return { text: await readInput(configPath), path: configPath, explicit: true };
      }
      for (const path of io.defaultConfigFiles) {
        try {
          return { text: await io.readFile(path), path, explicit: false };
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (code === 'ENOENT' || code === 'ENOTDIR') continue;
          throw new CtlError(
            'InvalidInput',
            `cannot read ${path}: ${code ?? (e as Error).message}`,
          );
        }
      }
      return undefined;
    };
    const datastoreConfig = async (): Promise<SelectedDatastore> => {
      if (selected) return selected;
      const file = await configFile();
      selected = selectDatastore({ env: io.env, ...(file && { file }) });
      return selected;
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
      store: async () => {
        if (opened) return opened;
        const { config } = await datastoreConfig();
        try {
          datastore = await io.openDatastore(config, {
            mayCreate: spec.store === 'write',
            readOnly: spec.store === 'read-only',
          });
        } catch (e) {
          throw toCtlError(e);
        }
        opened = {
          datastore,
          ipam: createIpamClient({
            datastore,
            ...(io.clock && { clock: io.clock }),
            ...(io.random && { random: io.random }),
            // A best-effort step that failed leaves the command's outcome as it is: said, not hidden.
            report: (r) => io.stderr(`Warning: ${formatIpamReport(r)}\n`),
          }),
        };
        return opened;
      },
    };
    const out = await spec.run(ctx, flags, args);
    io.stdout(out.text);
    return out.exitCode ?? 0;
  } catch (e) {
    const { message, exitCode } = describeError(e);
    io.stderr(`Error: ${message}\n`);
    return exitCode;
  } finally {
    // The command's outcome and exit status stand: a store that fails to close is only said.
    await datastore?.close().catch((e: unknown) => {
      io.stderr(`Warning: closing the datastore: ${e instanceof Error ? e.message : String(e)}\n`);
    });
  }
}
