// `@netledger/device-daemon/cli`: netledger-device's command line (parsing, usage, exit codes) and
// its client verbs. Like `./client`, no daemon code, no native addon, no node:http, so the client's
// start-up snapshot can hold it.
export {
  DEFAULT_SOCKET,
  USAGE,
  UsageError,
  describeFailure,
  parseCommandLine,
} from './command-line.js';
export type { CommandLine } from './command-line.js';
export { CLIENT_VERBS, runClientVerb } from './client-verbs.js';
