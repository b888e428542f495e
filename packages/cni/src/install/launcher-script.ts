import { BLOB_NAME, BUNDLE_NAME, PLUGIN_DIR_NAME } from './plugin-files.js';

/**
 * The status a plugin started by the launcher adds 100 to when it chose its exit status itself
 * (a CNI error it printed, a usage error): the launcher then knows any other non-zero status came
 * from Node, before or instead of the plugin, and reports it as CNI error JSON.
 */
export const ANSWERED_STATUS_OFFSET = 100;

/** The environment variable the launcher passes its own pid in (see parent-watchdog.ts). */
export const LAUNCHER_PID_ENV = 'NETLEDGER_LAUNCHER_PID';

/**
 * Set (to the socket it tried) when the Perl agent client could not have the request served and
 * runs the launcher: the plugin then does not ask that socket a second time.
 */
export const AGENT_TRIED_ENV = 'NETLEDGER_AGENT_TRIED';

const SH_WORD = /^[\w./+=-]+$/;

/**
 * The installed plugin's launcher: a POSIX shell script that finds its files (`netledger-ipam.d/`
 * beside itself, or its own directory when `inPluginDir`), through a symlink too, so the pair can
 * live on any path, and runs Node with the start-up snapshot, or the plain bundle when NODE_OPTIONS
 * is set, the Node binary changed since the blob was stamped with its mtime, or the blob does not
 * load (status 14, or an abort on a damaged blob). A missing Node or bundle, or Node failing before
 * the plugin answered, prints CNI error JSON (code 999) and exits 1, never leaving the runtime with
 * a bare stack trace. Node runs as the launcher's child, not by exec, so a failed snapshot can still
 * fall back; the child exits when the launcher is killed (parent-watchdog.ts). `node` and `flags`
 * must be plain shell words. `inPluginDir`: the launcher the Perl agent client (the installed
 * executable then) runs, `netledger-ipam.d/netledger-ipam`; else the executable itself.
 */
export function launcherScript(args: {
  node: string;
  flags: readonly string[];
  inPluginDir?: boolean;
}): string {
  for (const word of [args.node, ...args.flags]) {
    if (!SH_WORD.test(word)) throw new Error(`${word}: cannot quote this word for sh`);
  }
  const flags = args.flags.join(' ');
  const offset = ANSWERED_STATUS_OFFSET;
  const lib = args.inPluginDir ? '$d' : `$d/${PLUGIN_DIR_NAME}`;
  const where = args.inPluginDir ? "this file's directory" : `${PLUGIN_DIR_NAME}/ beside this file`;
  const sh = `# netledger-ipam, the CNI IPAM plugin, as \`netledger-ipam install\` lays it down (docs/cni.md).
# Starts Node.js from the start-up snapshot in ${where}, or runs the
# plain bundle there when the snapshot cannot serve. Whatever keeps the plugin from answering is
# reported on stdout as CNI error JSON. (\`node <this file>\` imports the bundle: line 2 opens a
# JavaScript comment that ends after the shell's last line.)
n=${args.node}
case $0 in *"/"*) d=\${0%/*} ;; *) d=. ;; esac
if [ -L "$0" ]; then p=$(readlink -f -- "$0") && d=\${p%/*}; fi
b=${lib}/${BLOB_NAME}
m=${lib}/${BUNDLE_NAME}
fail() {
  e=$(printf '%s' "$1" | sed 's/[\\\\"]/\\\\&/g')
  printf '{\\n    "code": 999,\\n    "msg": "netledger-ipam: %s"\\n}\\n' "$e"
  exit 1
}
# The plugin exits ${offset} + its status when it chose it; any other failure status is Node's.
answered() {
  [ "$1" -eq 0 ] && exit 0
  [ "$1" -ge ${offset} ] && [ "$1" -lt 128 ] && exit $(($1 - ${offset}))
}
[ -x "$n" ] || n=$(command -v node) || fail "no Node.js: $n is missing and node is not on PATH"
export ${LAUNCHER_PID_ENV}=$$
# A snapshot only loads in the Node that built it (mtime stamped on the blob) and without V8
# flags from NODE_OPTIONS. One that does not load makes Node exit (14) or abort before the plugin
# runs: the bundle answers instead (the commands are idempotent, should it have died later).
if [ -z "$NODE_OPTIONS" ] && [ -r "$b" ] && [ ! "$n" -nt "$b" ] && [ ! "$n" -ot "$b" ]; then
  "$n" ${flags} --snapshot-blob "$b" "$0" "$@"
  answered "$?"
fi
[ -r "$m" ] || fail "$m is missing or unreadable: run netledger-ipam install again"
"$n" "$m" "$@"
s=$?
answered "$s"
fail "Node.js exited with status $s before the plugin answered (see its standard error)"
`;
  // The shell part sits in a JavaScript block comment, which it must not end early.
  if (sh.includes('*/')) throw new Error("the launcher's shell part contains */");
  const bundle = args.inPluginDir ? BUNDLE_NAME : `${PLUGIN_DIR_NAME}/${BUNDLE_NAME}`;
  return `#!/bin/sh\n':' /*\n${sh}*/\nimport './${bundle}';\n`;
}
