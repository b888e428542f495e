import { isIpamError } from '@netledger/ipam-core';
import { isCtlError } from '../ctl-error.js';
import { createCommandContext } from './command-context.js';
import type { OpenedContext } from './command-context.js';
import type { CtlIo } from './command-spec.js';
import { commandHelp, topUsage } from './ctl-help.js';
import { findCommand, isCommandGroup } from './find-command.js';
import { parseCommandArgs } from './parse-command-args.js';

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

/** The message and exit code for an error: 2 for usage errors, 1 for everything else. */
function describeError(e: unknown): { message: string; exitCode: number } {
  if (isCtlError(e)) return { message: oneLine(e.message), exitCode: e.code === 'Usage' ? 2 : 1 };
  if (isIpamError(e)) return { message: oneLine(e.message), exitCode: 1 };
  if (e instanceof Error) return { message: oneLine(e.message), exitCode: 1 };
  return { message: oneLine(String(e)), exitCode: 1 };
}

/** No command matched: a group's `--help` lists it (0); anything else is a usage error (2). */
function unknownCommand(io: CtlIo, words: readonly string[]): number {
  const argv = io.argv;
  const group = isCommandGroup(words);
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
  if (!spec) return unknownCommand(io, words);
  let context: OpenedContext | undefined;
  try {
    const { flags, args } = parseCommandArgs(spec, rest);
    if (flags.help === true) {
      io.stdout(commandHelp(spec));
      return 0;
    }
    context = createCommandContext({ io, spec, flags });
    const out = await spec.run(context.ctx, flags, args);
    io.stdout(out.text);
    return out.exitCode ?? 0;
  } catch (e) {
    const { message, exitCode } = describeError(e);
    io.stderr(`Error: ${message}\n`);
    return exitCode;
  } finally {
    // The command's outcome and exit status stand: a store that fails to close is only said.
    await context
      ?.opened()
      ?.close()
      .catch((e: unknown) => {
        io.stderr(
          `Warning: closing the datastore: ${e instanceof Error ? e.message : String(e)}\n`,
        );
      });
  }
}
