// @netledger/cni/install: laying netledger-ipam down on a host and taking it away, as Calico's
// install-cni does: `netledger-ipam install` (the static client and the Node.js fallback into a
// CNI bin directory), `install-cni` and `uninstall-cni` (the client and a conflist on a node, with
// a record of what was written), and where the plugin's files sit beside each other. Apart from
// the main entry, so the library's users load none of it.

export { runInstallVerb } from './install/run-install.js';
export {
  ANSWERED_STATUS_OFFSET,
  CLIENT_ENV,
  FALLBACK_REASON_ENV,
  staticClientBeside,
} from './install/plugin-files.js';
