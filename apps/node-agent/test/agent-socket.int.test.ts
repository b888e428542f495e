// Where netledger-node puts its socket, and who may use it: a directory it did not create is never
// changed (a shared one like /tmp keeps its mode and owner; one others could replace the socket in
// is refused), another user's socket is never removed, the socket admits root only, and
// `netledger-node status` run by another user says permission denied, not "no agent".
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, startNodeAgent } from '@netledger/testkit';
import type { NodeAgentFixture } from '@netledger/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT } from './agent-harness.js';

/**
 * A user that is not root (nobody's ids); setpriv runs commands as it, no account needed. It may
 * read and search any file (CAP_DAC_READ_SEARCH), so it can run the checkout's executables wherever
 * the checkout is (under a 0700 home directory too), but not write to what it does not own: a unix
 * socket's mode still decides whether it may connect.
 */
const OTHER = 65534;

let tmp: { path: string; remove: () => Promise<void> };
let store: string;
let agent: NodeAgentFixture | undefined;

/** Runs `command` as {@link OTHER}. */
const asOther = (command: string, args: string[]) =>
  spawnSync(
    'setpriv',
    [
      `--reuid=${OTHER}`,
      `--regid=${OTHER}`,
      '--clear-groups',
      '--inh-caps=+dac_read_search',
      '--ambient-caps=+dac_read_search',
      command,
      ...args,
    ],
    { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' }, timeout: 30_000 },
  );

/** What another user gets connecting to `socket`: `connected`, or the error code. */
const connectAsOther = (socket: string): string =>
  asOther(process.execPath, [
    '-e',
    `require('node:net').createConnection({ path: ${JSON.stringify(socket)} })
      .on('connect', () => { console.log('connected'); process.exit(0); })
      .on('error', (e) => { console.log(e.code); process.exit(0); });`,
  ]).stdout.trim();

/** A directory with `mode` (chmod, so the umask plays no part). */
function directory(name: string, mode: number): string {
  const path = join(tmp.path, name);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

const stat = (path: string) => {
  const s = statSync(path);
  return { mode: s.mode & 0o7777, uid: s.uid, gid: s.gid };
};

/** Starts the agent in the foreground for a start that must fail: its status and stderr. */
const refusedStart = (socket: string) =>
  spawnSync(AGENT, ['--nodename', 'n1', '--socket', socket], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_DATASTORE_PATH: store },
    encoding: 'utf8',
    timeout: 30_000,
  });

beforeAll(async () => {
  tmp = await createTempDir('netledger-agent-socket-');
  // Others may pass through (not list) the test's directory, as through / to /tmp.
  chmodSync(tmp.path, 0o711);
  store = join(tmp.path, 'datastore.json');
});

afterEach(async () => {
  await agent?.stop('SIGKILL');
  agent = undefined;
});

afterAll(async () => {
  await tmp?.remove();
});

describe('the agent socket in a directory it did not create', () => {
  it('a 1777 directory (as /tmp) keeps its mode and owner while the agent runs and after it exits; the socket is 0600, root only', async () => {
    const shared = directory('shared', 0o1777);
    const before = stat(shared);
    const socket = join(shared, 'node.sock');
    agent = await startNodeAgent({
      bin: AGENT,
      nodename: 'n1',
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
    });
    expect(stat(shared)).toEqual(before);
    expect(stat(socket)).toMatchObject({ mode: 0o600, uid: 0 });
    expect(connectAsOther(socket)).toBe('EACCES');
    expect((await agent.status()).ready).toBe(true); // root still gets in
    expect(await agent.stop('SIGTERM')).toBe(0);
    agent = undefined;
    expect(stat(shared)).toEqual(before);
    expect(existsSync(socket)).toBe(false);
  });

  it('refuses a directory others can write without the sticky bit, naming it, and leaves it as it was', () => {
    const open = directory('open', 0o777);
    const r = refusedStart(join(open, 'node.sock'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `netledger-node: cannot listen on ${join(open, 'node.sock')}: ${open} (mode 0777) can be written by other users without the sticky bit`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(stat(open).mode).toBe(0o777);
    expect(existsSync(join(open, 'node.sock'))).toBe(false);
  });

  it('never removes a socket another user left at its path in a shared directory', () => {
    const shared = directory('squatted', 0o1777);
    const socket = join(shared, 'node.sock');
    const bind = 'socket(S, 1, 1, 0) && bind(S, pack("S", 1) . $ARGV[0]) or exit 1';
    expect(asOther('/usr/bin/perl', ['-e', bind, socket]).status).toBe(0);
    const r = refusedStart(socket);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${socket} is a socket of uid ${OTHER}, not of this agent's (0)`);
    expect(stat(socket).uid).toBe(OTHER);
    expect(stat(shared).mode).toBe(0o1777);
  });

  it('a missing directory is created 0700, the agent’s own', async () => {
    const socket = join(tmp.path, 'made', 'run', 'node.sock');
    agent = await startNodeAgent({
      bin: AGENT,
      nodename: 'n1',
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
    });
    expect(stat(join(tmp.path, 'made'))).toMatchObject({ mode: 0o700, uid: 0 });
    expect(stat(join(tmp.path, 'made', 'run'))).toMatchObject({ mode: 0o700, uid: 0 });
    expect(stat(socket)).toMatchObject({ mode: 0o600, uid: 0 });
  });
});

describe('netledger-node status as another user', () => {
  it('says permission denied, naming the socket (exit 4), not that no agent answers', async () => {
    const socket = join(directory('status', 0o1777), 'node.sock');
    agent = await startNodeAgent({
      bin: AGENT,
      nodename: 'n1',
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
    });
    const r = asOther(AGENT, ['status', '--socket', socket]);
    expect(r.status).toBe(4);
    expect(r.stderr).toBe(
      `netledger-node: permission denied on ${socket} (EACCES): only the agent's user (root) may ask it\n`,
    );
    expect(r.stdout).toBe('');
    // Root asks the same agent: its status.
    const root = spawnSync(AGENT, ['status', '--socket', socket], { encoding: 'utf8' });
    expect(root.status).toBe(0);
    expect(JSON.parse(root.stdout)).toMatchObject({ ready: true, nodename: 'n1' });
  });
});
