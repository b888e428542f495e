import { describe, expect, it } from 'vitest';
import { newcomerEnv } from './newcomer-env.js';

describe('newcomerEnv', () => {
  it('drops every PATH directory holding a pnpm, keeps the rest in order', () => {
    const env = newcomerEnv({
      env: { PATH: '/repo/.netledger/tools/pnpm-12.4.2/bin:/usr/local/bin::/usr/bin:/bin' },
      hasPnpm: (dir) => dir.includes('pnpm') || dir === '/usr/local/bin',
    });
    expect(env.PATH).toBe('/usr/bin:/bin');
  });

  it.each([
    'npm_config_user_agent',
    'npm_lifecycle_event',
    'pnpm_config_verify_deps_before_run',
    'PNPM_HOME',
    'TURBO_HASH',
    'VITEST',
    'VITEST_POOL_ID',
    'NETLEDGER_DATASTORE_PATH',
    'NODE_ENV',
    'NODE_OPTIONS',
    'INIT_CWD',
    'CI',
  ])('drops %s, which a newcomer shell does not have', (name) => {
    const env = newcomerEnv({
      env: { PATH: '', [name]: 'x', HOME: '/root' },
      hasPnpm: () => false,
    });
    expect(env).not.toHaveProperty(name);
    expect(env.HOME).toBe('/root');
  });
});
