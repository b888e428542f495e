import { COMMANDS } from './commands.js';
import type { CommandSpec } from './command-spec.js';

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

/** The command list under the words `prefix` (all commands for none), with the usage line. */
export function topUsage(prefix: readonly string[]): string {
  const cmds = COMMANDS.filter((c) => prefix.every((w, i) => c.path[i] === w));
  const width = Math.max(...cmds.map((c) => c.path.join(' ').length));
  return (
    `usage: netledgerctl ${prefix.length > 0 ? prefix.join(' ') + ' ' : ''}<command> [options]\n\ncommands:\n` +
    cmds.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}\n`).join('') +
    `\nRun 'netledgerctl <command> --help' for a command's options.\n`
  );
}

/** A command's `--help`: usage, summary, its flags, an example and the global options. */
export function commandHelp(spec: CommandSpec): string {
  return (
    `usage: netledgerctl ${spec.usage}\n\n${spec.summary}\n` +
    (spec.help ? `\nOptions:\n${spec.help.trimEnd()}\n` : '') +
    `\nExample:\n  ${spec.example}\n` +
    `\n${GLOBAL_HELP}`
  );
}
