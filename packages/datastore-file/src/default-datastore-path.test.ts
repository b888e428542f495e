import { describe, expect, it } from 'vitest';
import { defaultDatastorePath } from './default-datastore-path.js';

describe('defaultDatastorePath', () => {
  it.each([
    {
      why: 'the env variable wins, even for root',
      env: { NETLEDGER_DATASTORE_PATH: '/srv/ipam.json', XDG_STATE_HOME: '/x' },
      uid: 0,
      want: '/srv/ipam.json',
    },
    {
      why: 'root uses the system path',
      env: { XDG_STATE_HOME: '/root/.state' },
      uid: 0,
      want: '/var/lib/netledger/datastore.json',
    },
    {
      why: 'an empty env variable counts as unset',
      env: { NETLEDGER_DATASTORE_PATH: '' },
      uid: 0,
      want: '/var/lib/netledger/datastore.json',
    },
    {
      why: 'a user with XDG_STATE_HOME',
      env: { XDG_STATE_HOME: '/home/ann/.st' },
      uid: 1000,
      want: '/home/ann/.st/netledger/datastore.json',
    },
    {
      why: 'a user without XDG_STATE_HOME',
      env: {},
      uid: 1000,
      want: '/home/ann/.local/state/netledger/datastore.json',
    },
    {
      why: 'a relative XDG_STATE_HOME is ignored, as the XDG spec says',
      env: { XDG_STATE_HOME: 'state' },
      uid: 1000,
      want: '/home/ann/.local/state/netledger/datastore.json',
    },
    {
      why: 'no uid (not POSIX) is treated as a user',
      env: {},
      uid: undefined,
      want: '/home/ann/.local/state/netledger/datastore.json',
    },
  ])('$why', ({ env, uid, want }) => {
    expect(defaultDatastorePath(env, uid, '/home/ann')).toBe(want);
  });
});
