// @netledger/cni/install: `netledger-ipam install` (the arguments, the files it lays down, the
// launcher script, the Perl agent client's executable, the example conflist) and the installed launcher's side of the plugin process
// (its pid, its status offset). Apart from the main entry, so the library's users load none of it.

export { runInstall } from './install/run-install.js';
export type { InstallIo } from './install/run-install.js';
export { agentClientScript } from './install/agent-client-script.js';
export type { AgentClientScriptArgs } from './install/agent-client-script.js';
export { AGENT_TRIED_ENV, ANSWERED_STATUS_OFFSET } from './install/launcher-script.js';
export { launcherPidOf, watchLauncher } from './install/parent-watchdog.js';
