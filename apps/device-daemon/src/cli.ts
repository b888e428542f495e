// The command line's output for the full executable (main.ts) and the start-up snapshot's client
// (client-main.ts): through write(2). Parsing, usage and exit codes are in
// `@netledger/device-daemon/cli`.
import { describeFailure } from '@netledger/device-daemon/cli';
import { writeFd } from '@netledger/write-fd';

/** Writes to stdout through write(2). */
export const print = (text: string): void => writeFd(1, text, (rest) => process.stdout.write(rest));

/** Writes to stderr through write(2). */
const printErr = (text: string): void => writeFd(2, text, (rest) => process.stderr.write(rest));

/** Prints a value: text as is, anything else as indented JSON. */
export function printValue(value: unknown): void {
  print(typeof value === 'string' ? value : JSON.stringify(value, null, 2) + '\n');
}

/** Prints a failure (see {@link describeFailure}) and returns its exit code. */
export function reportFailure(e: unknown, json: boolean): number {
  const f = describeFailure(e, json);
  if (f.stdout !== undefined) print(f.stdout);
  if (f.stderr !== undefined) printErr(f.stderr);
  return f.exitCode;
}
