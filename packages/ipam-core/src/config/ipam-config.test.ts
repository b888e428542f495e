import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../codec/value-codec.js';
import type { IpamErrorCode } from '../errors.js';
import type { IpamConfigValue } from '../model/ipam-config.js';
import {
  DEFAULT_IPAM_CONFIG,
  effectiveMaxBlocks,
  ipamConfigFromStored,
  ipamConfigToStored,
  validateIpamConfig,
} from './ipam-config.js';
import type { IpamConfig } from './ipam-config.js';

function errorOf(f: () => unknown): { code?: IpamErrorCode; message?: string } {
  try {
    f();
  } catch (e) {
    return e as { code: IpamErrorCode; message: string };
  }
  return {};
}

const config = (c: Partial<IpamConfig>): IpamConfig => ({ ...DEFAULT_IPAM_CONFIG, ...c });

describe('IPAM configuration', () => {
  it('defaults to non-strict, auto-allocating, no cap, no cooldown, persistence Enabled', () => {
    expect(DEFAULT_IPAM_CONFIG).toEqual({
      strictAffinity: false,
      autoAllocateBlocks: true,
      maxBlocksPerHost: 0,
      ipCooldownSeconds: 0,
      kubeVirtVMAddressPersistence: 'Enabled',
    });
    expect(Object.isFrozen(DEFAULT_IPAM_CONFIG)).toBe(true);
  });

  it('reads an absent persistence as Enabled', () => {
    const stored: IpamConfigValue = {
      strictAffinity: true,
      autoAllocateBlocks: false,
      maxBlocksPerHost: 0,
      ipCooldownSeconds: 0,
    };
    expect(ipamConfigFromStored(stored).kubeVirtVMAddressPersistence).toBe('Enabled');
  });

  // §5.2 item 61: Set {AutoAllocate: false, Strict: true} then Get returns an equal config,
  // through Calico's omitempty JSON.
  it.each([
    config({ strictAffinity: true, autoAllocateBlocks: false }),
    config({
      strictAffinity: true,
      maxBlocksPerHost: 4,
      ipCooldownSeconds: 1200,
      kubeVirtVMAddressPersistence: 'Disabled',
    }),
    DEFAULT_IPAM_CONFIG,
  ])('round-trips %j through the stored form', (c) => {
    validateIpamConfig(c);
    const key = { kind: 'IPAMConfig' } as const;
    const stored = decodeValue(key, encodeValue('IPAMConfig', ipamConfigToStored(c)));
    expect(ipamConfigFromStored(stored)).toEqual(c);
  });

  it.each<[string, Partial<IpamConfig>, IpamErrorCode, RegExp]>([
    [
      'strict and auto-allocate both off',
      { strictAffinity: false, autoAllocateBlocks: false },
      'ConfigConflict',
      /Cannot disable 'StrictAffinity' and 'AutoAllocateBlocks' at the same time/,
    ],
    [
      'a block cap without strict affinity',
      { maxBlocksPerHost: 2 },
      'ConfigConflict',
      /MaxBlocksPerHost requires StrictAffinity to be enabled/,
    ],
    [
      'a negative block cap',
      { strictAffinity: true, maxBlocksPerHost: -1 },
      'InvalidArgument',
      /maxBlocksPerHost/,
    ],
    [
      'a block cap over 1,000,000',
      { strictAffinity: true, maxBlocksPerHost: 1_000_001 },
      'InvalidArgument',
      /maxBlocksPerHost/,
    ],
    [
      'a fractional block cap',
      { strictAffinity: true, maxBlocksPerHost: 1.5 },
      'InvalidArgument',
      /maxBlocksPerHost/,
    ],
    ['a cooldown over 1200', { ipCooldownSeconds: 1201 }, 'InvalidArgument', /ipCooldownSeconds/],
    ['a negative cooldown', { ipCooldownSeconds: -1 }, 'InvalidArgument', /ipCooldownSeconds/],
    [
      'an unknown persistence',
      { kubeVirtVMAddressPersistence: 'Maybe' as never },
      'InvalidArgument',
      /kubeVirtVMAddressPersistence/,
    ],
    ['a non-boolean flag', { strictAffinity: 'yes' as never }, 'InvalidArgument', /strictAffinity/],
  ])('validateIpamConfig refuses %s', (_what, c, code, message) => {
    const e = errorOf(() => validateIpamConfig(config(c)));
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it.each([
    config({ strictAffinity: true, maxBlocksPerHost: 1_000_000, ipCooldownSeconds: 1200 }),
    config({ strictAffinity: true, autoAllocateBlocks: false }),
  ])('validateIpamConfig accepts %j', (c) => {
    expect(() => validateIpamConfig(c)).not.toThrow();
  });

  it.each<[string, IpamConfigValue, RegExp]>([
    [
      'both off',
      {
        strictAffinity: false,
        autoAllocateBlocks: false,
        maxBlocksPerHost: 0,
        ipCooldownSeconds: 0,
      },
      /Cannot disable/,
    ],
    [
      'a cap without strict',
      {
        strictAffinity: false,
        autoAllocateBlocks: true,
        maxBlocksPerHost: 3,
        ipCooldownSeconds: 0,
      },
      /requires StrictAffinity/,
    ],
  ])(
    'rejects a stored config that breaks a cross-field rule on read (%s)',
    (_what, stored, message) => {
      const e = errorOf(() => ipamConfigFromStored(stored));
      expect(e.code).toBe('ConfigConflict');
      expect(e.message).toMatch(message);
    },
  );
});

// §5.2 item 62: the minimum of both caps wins; 20 when neither is set.
describe('effectiveMaxBlocks', () => {
  it.each<[number | undefined, number, number]>([
    [undefined, 0, 20],
    [0, 0, 20],
    [undefined, 2, 2],
    [3, 2, 2],
    [2, 3, 2],
    [3, 0, 3],
    [256, 0, 256],
    [undefined, 3, 3],
  ])('request %s, global %d -> %d', (requested, global, expected) => {
    expect(effectiveMaxBlocks(requested, global)).toBe(expected);
  });
});
