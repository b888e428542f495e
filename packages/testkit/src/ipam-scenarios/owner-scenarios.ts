import { describe, expect, it } from 'vitest';
import type { EnvAccessor, ScenarioEnv } from './harness.js';
import { expectIpamError } from './harness.js';

const IP = '10.0.0.1';
const H = 'h1';
const owner = (pod: string) => ({ pod, namespace: 'ns' });

/** §5.2 items 31-32: allocation attributes and owner-attribute updates. */
export function describeOwnerScenarios(env: EnvAccessor): void {
  describe('owner attributes', () => {
    it('31: GetAssignmentAttributes of missing, assigned, free and cooling addresses', async () => {
      const e = env();
      await e.node('host-a');
      await expectIpamError(e.client.getAssignmentAttributes(IP), 'DoesNotExist');
      await e.pool('pool1', '10.0.0.0/24');
      await expectIpamError(e.client.getAssignmentAttributes(IP), 'DoesNotExist');
      const attrs = { node: 'host-a', type: 'vxlanTunnelAddress' };
      await e.client.assignIp({ ip: IP, hostname: 'host-a', handleId: 'my-test-handle', attrs });
      await expect(e.client.getAssignmentAttributes(IP)).resolves.toEqual({
        handleId: 'my-test-handle',
        activeOwnerAttrs: attrs,
      });
      await expectIpamError(e.client.getAssignmentAttributes('10.0.0.2'), 'DoesNotExist');

      await e.setConfig({ ipCooldownSeconds: 60 });
      await e.client.releaseIps([{ address: IP }]);
      await expectIpamError(e.client.getAssignmentAttributes(IP), 'IpInCooldown');
      e.clock.advance(61_000);
      await expectIpamError(e.client.getAssignmentAttributes(IP), 'DoesNotExist');
    });

    describe('32: SetOwnerAttributes', () => {
      const setup = async (): Promise<ScenarioEnv> => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24');
        await e.node('host-a');
        await e.client.assignIp({ ip: IP, hostname: 'host-a', handleId: H, attrs: owner('src') });
        return e;
      };
      const attrsOf = (e: ScenarioEnv, ip = IP) => e.client.getAssignmentAttributes(ip);

      it('sets, clears and overwrites each owner, leaving the other alone', async () => {
        const e = await setup();
        await e.client.setOwnerAttributes(IP, H, { alternateOwnerAttrs: owner('dst') });
        expect(await attrsOf(e)).toEqual({
          handleId: H,
          activeOwnerAttrs: owner('src'),
          alternateOwnerAttrs: owner('dst'),
        });
        await e.client.setOwnerAttributes(IP, H, { activeOwnerAttrs: owner('a2') });
        expect(await attrsOf(e)).toMatchObject({
          activeOwnerAttrs: owner('a2'),
          alternateOwnerAttrs: owner('dst'),
        });
        await e.client.setOwnerAttributes(IP, H, {
          activeOwnerAttrs: owner('a3'),
          alternateOwnerAttrs: owner('b3'),
        });
        expect(await attrsOf(e)).toMatchObject({
          activeOwnerAttrs: owner('a3'),
          alternateOwnerAttrs: owner('b3'),
        });
        await e.client.setOwnerAttributes(IP, H, { clearActiveOwner: true });
        expect(await attrsOf(e)).toEqual({ handleId: H, alternateOwnerAttrs: owner('b3') });
        await e.client.setOwnerAttributes(IP, H, { clearAlternateOwner: true });
        expect(await attrsOf(e)).toEqual({ handleId: H });
      });

      it('checks preconditions', async () => {
        const e = await setup();
        await e.client.setOwnerAttributes(
          IP,
          H,
          { activeOwnerAttrs: owner('a2') },
          { expectedActiveOwner: { namespace: 'ns', name: 'src' } },
        );
        await expectIpamError(
          e.client.setOwnerAttributes(
            IP,
            H,
            { activeOwnerAttrs: owner('a3') },
            { expectedActiveOwner: { namespace: 'ns', name: 'src' } },
          ),
          'PreconditionFailed',
        );
        await expectIpamError(
          e.client.setOwnerAttributes(
            IP,
            H,
            { activeOwnerAttrs: owner('a3') },
            { verifyActiveOwnerEmpty: true },
          ),
          'PreconditionFailed',
        );
        await e.client.setOwnerAttributes(
          IP,
          H,
          { alternateOwnerAttrs: owner('b') },
          { verifyAlternateOwnerEmpty: true },
        );
        expect(await attrsOf(e)).toMatchObject({
          activeOwnerAttrs: owner('a2'),
          alternateOwnerAttrs: owner('b'),
        });
      });

      it.each([
        {
          case: 'clear and set active',
          u: { clearActiveOwner: true, activeOwnerAttrs: owner('x') },
          p: {},
        },
        {
          case: 'clear and set alternate',
          u: { clearAlternateOwner: true, alternateOwnerAttrs: owner('x') },
          p: {},
        },
        {
          case: 'expect and verify-empty active',
          u: { activeOwnerAttrs: owner('x') },
          p: {
            expectedActiveOwner: { namespace: 'ns', name: 'src' },
            verifyActiveOwnerEmpty: true,
          },
        },
        {
          case: 'expect and verify-empty alternate',
          u: { alternateOwnerAttrs: owner('x') },
          p: {
            expectedAlternateOwner: { namespace: 'ns', name: 'y' },
            verifyAlternateOwnerEmpty: true,
          },
        },
      ])('refuses mutually exclusive options: $case', async ({ u, p }) => {
        const e = await setup();
        const err = await expectIpamError(
          e.client.setOwnerAttributes(IP, H, u, p),
          'InvalidArgument',
        );
        expect(err.message).toMatch(/mutually exclusive/);
        expect(await attrsOf(e)).toEqual({ handleId: H, activeOwnerAttrs: owner('src') });
      });

      it('refuses a wrong handle, a free address and an address outside every pool', async () => {
        const e = await setup();
        const u = { activeOwnerAttrs: owner('x') };
        await expectIpamError(e.client.setOwnerAttributes(IP, 'other', u), 'InvalidArgument');
        await expectIpamError(e.client.setOwnerAttributes('10.0.0.200', H, u), 'DoesNotExist');
        await expectIpamError(e.client.setOwnerAttributes('192.168.1.1', H, u), 'InvalidArgument');
      });

      it('runs a live migration from source to target', async () => {
        const e = await setup();
        const src = { namespace: 'ns', name: 'src' };
        const dst = { namespace: 'ns', name: 'dst' };
        await e.client.setOwnerAttributes(
          IP,
          H,
          { alternateOwnerAttrs: owner('dst') },
          { verifyAlternateOwnerEmpty: true },
        );
        await e.client.setOwnerAttributes(
          IP,
          H,
          { clearActiveOwner: true },
          { expectedActiveOwner: src },
        );
        await e.client.setOwnerAttributes(
          IP,
          H,
          { activeOwnerAttrs: owner('dst'), clearAlternateOwner: true },
          { verifyActiveOwnerEmpty: true, expectedAlternateOwner: dst },
        );
        expect(await attrsOf(e)).toEqual({ handleId: H, activeOwnerAttrs: owner('dst') });
      });

      it('treats empty updates as a successful no-op', async () => {
        const e = await setup();
        await e.client.setOwnerAttributes(IP, H, {});
        expect(await attrsOf(e)).toEqual({ handleId: H, activeOwnerAttrs: owner('src') });
      });

      it('changes only the named address when others share its attribute record', async () => {
        const e = await setup();
        await e.client.assignIp({
          ip: '10.0.0.2',
          hostname: 'host-a',
          handleId: H,
          attrs: owner('src'),
        });
        await e.client.setOwnerAttributes(IP, H, { alternateOwnerAttrs: owner('dst') });
        expect(await attrsOf(e, '10.0.0.2')).toEqual({
          handleId: H,
          activeOwnerAttrs: owner('src'),
        });
      });
    });
  });
}
