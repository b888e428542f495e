import { describe, expect, it } from 'vitest';
import { parseCniRequest } from './cni-request.js';

const full = {
  CNI_CONTAINERID: 'abc123',
  CNI_NETNS: '/var/run/netns/x',
  CNI_IFNAME: 'eth0',
  CNI_PATH: '/opt/cni/bin',
};

describe('parseCniRequest', () => {
  it('is undefined without CNI_COMMAND (the about text)', () => {
    expect(parseCniRequest({})).toBeUndefined();
    expect(parseCniRequest({ CNI_COMMAND: '' })).toBeUndefined();
  });

  it.each(['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'])('reads %s', (command) => {
    expect(parseCniRequest({ CNI_COMMAND: command, ...full, CNI_ARGS: 'IgnoreUnknown=1' })).toEqual(
      {
        command,
        containerId: 'abc123',
        netns: '/var/run/netns/x',
        ifname: 'eth0',
        args: 'IgnoreUnknown=1',
        path: '/opt/cni/bin',
      },
    );
  });

  it.each([
    [{ CNI_COMMAND: 'ADDX' }, 'unknown CNI_COMMAND: ADDX'],
    [
      { CNI_COMMAND: 'ADD' },
      'required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME,CNI_PATH] missing',
    ],
    [{ CNI_COMMAND: 'ADD', ...full, CNI_NETNS: '' }, 'required env variables [CNI_NETNS] missing'],
    [
      { CNI_COMMAND: 'DEL', CNI_PATH: '/p' },
      'required env variables [CNI_CONTAINERID,CNI_IFNAME] missing',
    ],
    [
      { CNI_COMMAND: 'CHECK', ...full, CNI_NETNS: undefined },
      'required env variables [CNI_NETNS] missing',
    ],
    [{ CNI_COMMAND: 'GC' }, 'required env variables [CNI_PATH] missing'],
    [{ CNI_COMMAND: 'STATUS' }, 'required env variables [CNI_PATH] missing'],
    [{ CNI_COMMAND: 'ADD', ...full, CNI_CONTAINERID: 'a/b' }, 'invalid characters in containerID'],
    [{ CNI_COMMAND: 'ADD', ...full, CNI_CONTAINERID: '-abc' }, 'invalid characters in containerID'],
    [
      { CNI_COMMAND: 'ADD', ...full, CNI_IFNAME: 'averyveryverylongname' },
      'interface name is too long',
    ],
    [
      { CNI_COMMAND: 'ADD', ...full, CNI_IFNAME: 'eth 0' },
      'interface name contains / or : or whitespace characters',
    ],
    [{ CNI_COMMAND: 'DEL', ...full, CNI_IFNAME: '..' }, 'interface name is . or ..'],
  ])('refuses %j with InvalidEnvironmentVariables', (env, msg) => {
    expect(() => parseCniRequest(env)).toThrow(expect.objectContaining({ code: 4, message: msg }));
  });

  it('needs nothing but CNI_COMMAND for VERSION', () => {
    expect(parseCniRequest({ CNI_COMMAND: 'VERSION' })).toMatchObject({ command: 'VERSION' });
  });
});
