import { LAUNCHER_PID_ENV } from './launcher-script.js';

/** How often a plugin started by the launcher checks that the launcher is still there. */
const CHECK_MS = 100;

/**
 * The pid of the installed launcher that started this process (`NETLEDGER_LAUNCHER_PID`, which
 * the launcher sets for its child only), or `undefined` when another program started it.
 */
export function launcherPidOf(env: NodeJS.ProcessEnv): number | undefined {
  const pid = Number(env[LAUNCHER_PID_ENV]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Exits the process (through `exit`) when its launcher is gone: at once if it already is (it was
 * killed before Node started), else as soon as it goes. A runtime that gives up on a plugin kills
 * the process it started, which is the launcher; without this, Node would go on (waiting for the
 * host lock, then assigning) after the runtime moved on, and leak what it assigned. The check is
 * an unreferenced timer: it never keeps the process alive.
 */
export function watchLauncher(launcherPid: number, exit: () => void): void {
  if (process.ppid !== launcherPid) {
    exit();
    return;
  }
  setInterval(() => {
    if (process.ppid !== launcherPid) exit();
  }, CHECK_MS).unref();
}
