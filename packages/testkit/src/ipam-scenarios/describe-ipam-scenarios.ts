import { afterAll, afterEach, beforeEach, describe, expect } from 'vitest';
import { describeAffinityScenarios } from './affinity-scenarios.js';
import { describeAllocationScenarios } from './allocation-scenarios.js';
import { describeConfigScenarios } from './config-scenarios.js';
import type { IpamScenarioTarget, ScenarioEnv } from './harness.js';
import { openScenarioEnv } from './harness.js';
import { describeOwnerScenarios } from './owner-scenarios.js';
import { describePoolSelectionScenarios } from './pool-selection-scenarios.js';
import { describeReleaseScenarios } from './release-scenarios.js';
import { storeProblems } from './store-consistency.js';
import { describeWindowsScenarios } from './windows-scenarios.js';

/**
 * Calico's IPAM scenarios (reference §5.2 items 1-38, 59-66) against the IPAM client over a
 * store: every store adapter runs this suite. Each scenario starts from an empty store, seeds it
 * through the client's resource clients, and drives time with an injected clock.
 */
export function describeIpamScenarios(name: string, target: IpamScenarioTarget): void {
  describe(`IPAM scenarios: ${name}`, () => {
    let env: ScenarioEnv | undefined;
    beforeEach(async () => {
      env = await openScenarioEnv(target);
    });
    afterEach(async (ctx) => {
      // A failed scenario may leave anything behind; a passing one must leave a sound store.
      if (env && ctx.task.result?.state !== 'fail') {
        expect(await storeProblems(env.ds)).toEqual([]);
      }
      await env?.ds.close();
      env = undefined;
    });
    afterAll(async () => {
      await target.teardown?.();
    });
    const get = (): ScenarioEnv => {
      if (!env) throw new Error('scenario env used outside a test');
      return env;
    };
    describeAllocationScenarios(get);
    describePoolSelectionScenarios(get);
    describeReleaseScenarios(get);
    describeOwnerScenarios(get);
    describeAffinityScenarios(get);
    describeConfigScenarios(get);
    describeWindowsScenarios(get);
  });
}
