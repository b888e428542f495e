import { COMMANDS } from './commands.js';
import type { CommandSpec } from './command-spec.js';

/**
 * The command named by the leading words of argv (the longest match), the words (argv up to its
 * first flag) and the rest of argv after the command's words; no `spec` when none matches.
 */
export function findCommand(argv: readonly string[]): {
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

/** Whether the words begin some command's path (a group such as `ipam`), so a `--help` lists it. */
export function isCommandGroup(words: readonly string[]): boolean {
  return COMMANDS.some((c) => words.length > 0 && words.every((w, i) => c.path[i] === w));
}
