// The start-up snapshot's main: the client verbs only (the daemon and the offline verbs run from
// the bundle; the launcher sends them there).
import {
  CLIENT_VERBS,
  parseCommandLine,
  runClientVerb,
  USAGE,
  UsageError,
} from '@netledger/device-daemon/cli';
import { print, printValue, reportFailure } from './cli.js';

/**
 * Runs a client verb from argv and sets the exit status (never throws). With no arguments it
 * prints the usage and exits 0: that is how scripts/link-bins.mjs checks that this Node can start
 * from the blob (the launcher itself only comes here with a client verb).
 */
export async function runClientMain(argv: readonly string[]): Promise<void> {
  if (argv.length === 0) {
    print(`${USAGE}\n`);
    return;
  }
  let json = false;
  try {
    const cli = parseCommandLine(argv);
    json = cli.json;
    if (cli.verb === undefined || !CLIENT_VERBS.has(cli.verb)) {
      throw new UsageError(
        `${cli.verb ?? 'no verb'}: the start-up snapshot serves client verbs only; run dist/netledger-device.mjs`,
      );
    }
    process.exitCode = await runClientVerb(cli, printValue);
  } catch (e) {
    process.exitCode = reportFailure(e, json);
  }
}
