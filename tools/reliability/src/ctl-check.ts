import { execFile } from 'node:child_process';
import { CTL } from './workspace.js';

/** What `netledgerctl ipam check` said. */
export interface CtlCheck {
  readonly problems: number;
  readonly output: string;
}

/**
 * Runs `netledgerctl ipam check --show-problem-ips` against the store `env` names and reads its
 * last line, `Check complete; found N problems.`; throws with the output when there is none.
 */
export async function ctlIpamCheck(env: Readonly<Record<string, string>>): Promise<CtlCheck> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(
      CTL,
      ['ipam', 'check', '--show-problem-ips'],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`netledgerctl ipam check: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
  const m = /Check complete; found (\d+) problems\./.exec(output);
  if (!m) throw new Error(`netledgerctl ipam check printed no verdict:\n${output}`);
  return { problems: Number(m[1]), output };
}

async function ctl(
  env: Readonly<Record<string, string>>,
  args: readonly string[],
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      CTL,
      args,
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(`netledgerctl ${args.join(' ')}: ${error.message}\n${stdout}\n${stderr}`),
          );
        else resolve(stdout);
      },
    );
  });
}

/**
 * calicoctl's leak clean-up, as docs/ctl.md gives it: lock the datastore, `ipam check -o REPORT`,
 * `ipam release --from-report REPORT`, unlock. Releases leaked addresses and handles no
 * allocation names (which no GC pass sees: it walks allocations). Answers the release output.
 */
export async function releaseLeaksFromReport(
  env: Readonly<Record<string, string>>,
  report: string,
): Promise<string> {
  await ctl(env, ['datastore', 'migrate', 'lock']);
  try {
    await ctl(env, ['ipam', 'check', '-o', report]);
    return await ctl(env, ['ipam', 'release', '--from-report', report]);
  } finally {
    await ctl(env, ['datastore', 'migrate', 'unlock']);
  }
}
