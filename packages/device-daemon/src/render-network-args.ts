import { DeviceError } from './device-error.js';

/** A run.json `network` block as emitted from template arguments. */
export interface RenderedNetworkBlock {
  readonly mode: 'pool';
  readonly pool: string;
  readonly hostname: string;
  readonly interfaces?: readonly [{ name: 'eth0'; ipv4_address?: string; mac_address?: string }];
}

/** The PV_NETWORK_* template arguments of an image's args.json. */
const KEYS = ['PV_NETWORK_POOL', 'PV_NETWORK_HOSTNAME', 'PV_NETWORK_IP', 'PV_NETWORK_MAC'] as const;

/**
 * Renders PV_NETWORK_* arguments into a run.json `network` block, as the image templates do:
 * POOL sets `pool` and `mode: "pool"`, HOSTNAME defaults to the container name, IP and MAC go to
 * `interfaces[0]`. Returns `undefined` when no PV_NETWORK_* argument is set (no network block:
 * zero impact). Throws `InvalidTemplateArgs` when an argument is not a non-empty string or IP/MAC
 * are given without a pool. The result is checked further by `parseNetworkBlock`.
 */
export function renderNetworkArgs(
  args: Readonly<Record<string, unknown>>,
  opts: { readonly container: string },
): RenderedNetworkBlock | undefined {
  for (const key of KEYS) {
    const v = args[key];
    if (v !== undefined && (typeof v !== 'string' || v === '')) {
      throw new DeviceError('InvalidTemplateArgs', `${key} must be a non-empty string`);
    }
  }
  const pool = args['PV_NETWORK_POOL'] as string | undefined;
  const hostname = args['PV_NETWORK_HOSTNAME'] as string | undefined;
  const ip = args['PV_NETWORK_IP'] as string | undefined;
  const mac = args['PV_NETWORK_MAC'] as string | undefined;
  if (pool === undefined) {
    if (ip !== undefined || mac !== undefined || hostname !== undefined) {
      throw new DeviceError(
        'InvalidTemplateArgs',
        'PV_NETWORK_IP, PV_NETWORK_MAC and PV_NETWORK_HOSTNAME need PV_NETWORK_POOL',
      );
    }
    return undefined;
  }
  const block: RenderedNetworkBlock = { mode: 'pool', pool, hostname: hostname ?? opts.container };
  if (ip === undefined && mac === undefined) return block;
  return {
    ...block,
    interfaces: [
      {
        name: 'eth0',
        ...(ip === undefined ? {} : { ipv4_address: ip }),
        ...(mac === undefined ? {} : { mac_address: mac }),
      },
    ],
  };
}
