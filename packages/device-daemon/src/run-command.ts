import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The outcome of an external command. */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs external commands with an argument array (never a shell string). */
export interface CommandRunner {
  /** Resolves a bare command name against PATH; `undefined` when it is not installed. */
  which(name: string): Promise<string | undefined>;
  /** Runs `file` with `args`, feeding `input` on stdin. Never throws for a non-zero exit. */
  run(
    file: string,
    args: readonly string[],
    opts?: { readonly input?: string },
  ): Promise<CommandResult>;
}

/** A {@link CommandRunner} over `child_process.spawn`, resolving names against the given PATH. */
export function createCommandRunner(opts: { readonly path: string }): CommandRunner {
  return {
    async which(name) {
      for (const dir of opts.path.split(delimiter)) {
        if (dir === '') continue;
        const candidate = join(dir, name);
        try {
          await access(candidate, constants.X_OK);
          return candidate;
        } catch {
          // not here; keep looking
        }
      }
      return undefined;
    },
    run(file, args, runOpts) {
      return new Promise((resolve) => {
        const child = spawn(file, [...args], {
          stdio: ['pipe', 'pipe', 'pipe'],
          env: { PATH: opts.path, LC_ALL: 'C' },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('error', (e) => resolve({ code: 127, stdout, stderr: stderr + e.message }));
        child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
        // EPIPE from a command that exits without reading its input: its exit status and stderr
        // (the 'close' above) say what happened.
        child.stdin.on('error', () => undefined);
        child.stdin.end(runOpts?.input ?? '');
      });
    },
  };
}
