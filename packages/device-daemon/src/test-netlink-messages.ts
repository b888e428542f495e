// Kernel answers for tests, written by the `netlink` package's own rtnetlink formatter (an
// independent oracle for our decoder). Excluded from the build by the test-* pattern.
import { parseIp } from '@netledger/accounting';
import { AttrStream, rt } from 'netlink';

function bytesOf(text: string): Buffer {
  const { version, value } = parseIp(text);
  const out = Buffer.alloc(version === 4 ? 4 : 16);
  for (let i = out.length - 1, v = value; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function format(write: (out: AttrStream) => void): Uint8Array {
  const out = new AttrStream();
  write(out);
  return new Uint8Array(Buffer.concat(out.bufs));
}

/** An RTM_NEWLINK body: a link `name` with `index`, a port of `master` when given. */
export function linkMessage(args: { index: number; name: string; master?: number }): Uint8Array {
  return format((out) =>
    rt.formatLinkMessage(
      {
        kind: 'link',
        data: { index: args.index },
        attrs: { ifname: args.name, ...(args.master === undefined ? {} : { master: args.master }) },
      },
      out,
    ),
  );
}

/**
 * An RTM_NEWROUTE body as the kernel dumps it: main table and unicast unless told; the table id
 * in both rtm_table (255 and below) and RTA_TABLE; `nexthops` (interface indexes) as RTA_MULTIPATH.
 */
export function routeMessage(args: {
  family: 4 | 6;
  dst?: string;
  prefix: number;
  oif?: number;
  gateway?: string;
  table?: number;
  type?: number;
  nexthops?: number[];
}): Uint8Array {
  const table = args.table ?? 254;
  const multipath =
    args.nexthops === undefined
      ? undefined
      : Buffer.concat(args.nexthops.map((ifindex) => rt.formatRouteNextHop({ len: 8, ifindex })));
  return format((out) =>
    rt.formatRouteMessage(
      {
        kind: 'route',
        data: {
          family: args.family === 4 ? 2 : 10,
          dstLen: args.prefix,
          table: table > 255 ? 252 : table, // RT_TABLE_COMPAT for ids that do not fit
          type: args.type ?? 1,
        },
        attrs: {
          ...(args.dst === undefined ? {} : { dst: bytesOf(args.dst) }),
          ...(args.oif === undefined ? {} : { oif: args.oif }),
          ...(args.gateway === undefined ? {} : { gateway: bytesOf(args.gateway) }),
          ...(multipath === undefined ? {} : { multipath }),
          table,
        },
      },
      out,
    ),
  );
}
