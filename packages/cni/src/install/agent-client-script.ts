import { DEFAULT_AGENT_SOCKET } from '../net-conf.js';
import { LAUNCHER_NAME, PLUGIN_DIR_NAME } from './plugin-files.js';

/** What the installed executable is when a Perl was found: the node agent's client. */
export interface AgentClientScriptArgs {
  /** The Perl found at install time (absolute path), named on the `#!` line. */
  readonly perl: string;
  /** The socket whose presence makes the client try the agent (`--agent-socket`). */
  readonly probeSocket: string;
  /** The client's source (apps/cni-plugin/src/agent-client.pl), which uses the settings. */
  readonly client: string;
}

const PERL_WORD = /^[\w./+=-]+$/;

/**
 * The installed `netledger-ipam` when a Perl was found: `#!<perl>`, the install's settings
 * (`$probe`, `$sock`: the default `agent_socket`, `$launcher`: the shell launcher
 * `netledger-ipam.d/netledger-ipam`, relative to the executable's directory), then the client,
 * which asks the node agent for ADD, DEL, CHECK, GC and STATUS and runs the launcher otherwise.
 * Throws when the Perl is not an absolute plain path or the socket not a plain path.
 */
export function agentClientScript(args: AgentClientScriptArgs): string {
  if (!args.perl.startsWith('/') || !PERL_WORD.test(args.perl)) {
    throw new Error(`${args.perl}: not an absolute plain path to Perl`);
  }
  for (const path of [args.probeSocket, DEFAULT_AGENT_SOCKET]) {
    if (!PERL_WORD.test(path)) throw new Error(`${path}: cannot quote this path for Perl`);
  }
  return `#!${args.perl}
# netledger-ipam, the CNI IPAM plugin, as \`netledger-ipam install\` lays it down (docs/cni.md): the
# node agent's client, in front of the launcher ${PLUGIN_DIR_NAME}/${LAUNCHER_NAME}.
my $probe = '${args.probeSocket}';
my $sock = '${DEFAULT_AGENT_SOCKET}';
my $launcher = '${PLUGIN_DIR_NAME}/${LAUNCHER_NAME}';
${args.client}`;
}
