// rtnetlink message bodies (the part after the 16-byte nlmsghdr, which the socket adds), encoded
// and decoded by hand: the only place that knows the kernel's struct layouts. Native byte order.

/** rtnetlink message types used by the daemon. */
export const RTM = {
  NEWLINK: 16,
  DELLINK: 17,
  GETLINK: 18,
  NEWADDR: 20,
  DELADDR: 21,
  NEWROUTE: 24,
  GETROUTE: 26,
} as const;
/**
 * nlmsghdr flags used with those messages (REQUEST and ACK are added by the socket). DUMP
 * (ROOT|MATCH) asks a GET for every object; the answer is multipart, ended by NLMSG_DONE.
 */
export const NLM_F = { REPLACE: 0x100, EXCL: 0x200, CREATE: 0x400, DUMP: 0x300 } as const;
/** rtm_type of a route to a destination (direct or through a gateway). */
export const RTN_UNICAST = 1;
/** The routing table that holds the host's own and broadcast addresses, not routes to networks. */
export const RT_TABLE_LOCAL = 255;
/** The netlink error/ack message type. */
export const NLMSG_ERROR = 2;

const AF_UNSPEC = 0;
const AF_INET = 2;
const AF_INET6 = 10;
/** ifa_flags: skip duplicate address detection, so the address is usable at once. */
const IFA_F_NODAD = 0x02;
const IFF_UP = 1;
const IFLA_IFNAME = 3;
const IFLA_MASTER = 10;
const IFLA_LINKINFO = 18;
const IFLA_INFO_KIND = 1;
const IFA_ADDRESS = 1;
const IFA_LOCAL = 2;
const IFA_BROADCAST = 4;
const RTA_DST = 1;
const RTA_OIF = 4;
const RTA_GATEWAY = 5;
const RTA_MULTIPATH = 9;
const RTA_TABLE = 15;
const IFINFOMSG_LEN = 16;
const IFADDRMSG_LEN = 8;
const RTMSG_LEN = 12;
const RTNEXTHOP_LEN = 8;

const LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** One rtattr: 2-byte length, 2-byte type, payload, padded to 4 bytes. */
export function encodeAttr(type: number, payload: Uint8Array): Uint8Array {
  const len = 4 + payload.length;
  const out = new Uint8Array(align4(len));
  const view = new DataView(out.buffer);
  view.setUint16(0, len, LE);
  view.setUint16(2, type, LE);
  out.set(payload, 4);
  return out;
}

function cString(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

function addressBytes(family: 4 | 6, ip: bigint): Uint8Array {
  const out = new Uint8Array(family === 4 ? 4 : 16);
  for (let i = out.length - 1, v = ip; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function ifinfomsg(args: { index: number; flags: number; change: number }): Uint8Array {
  const out = new Uint8Array(IFINFOMSG_LEN);
  const view = new DataView(out.buffer);
  view.setUint8(0, AF_UNSPEC);
  view.setUint16(2, 0, LE); // ifi_type
  view.setInt32(4, args.index, LE);
  view.setUint32(8, args.flags, LE);
  view.setUint32(12, args.change, LE);
  return out;
}

/** RTM_NEWLINK body creating a bridge named `name` (send with CREATE|EXCL). */
export function encodeNewBridge(name: string): Uint8Array {
  const linkinfo = encodeAttr(IFLA_LINKINFO, encodeAttr(IFLA_INFO_KIND, cString('bridge')));
  return concat([
    ifinfomsg({ index: 0, flags: 0, change: 0 }),
    encodeAttr(IFLA_IFNAME, cString(name)),
    linkinfo,
  ]);
}

/** RTM_GETLINK (or RTM_DELLINK) body selecting a link by name. */
export function encodeLinkByName(name: string): Uint8Array {
  return concat([
    ifinfomsg({ index: 0, flags: 0, change: 0 }),
    encodeAttr(IFLA_IFNAME, cString(name)),
  ]);
}

/** RTM_GETLINK body for a dump of every link (send with DUMP). */
export function encodeLinkDump(): Uint8Array {
  return ifinfomsg({ index: 0, flags: 0, change: 0 });
}

/** RTM_GETROUTE body for a dump of every route of both IP families, all tables (send with DUMP). */
export function encodeRouteDump(): Uint8Array {
  return new Uint8Array(RTMSG_LEN); // rtm_family AF_UNSPEC: every family
}

/** RTM_NEWLINK body setting IFF_UP on the link with `index` (no create flags). */
export function encodeSetLinkUp(index: number): Uint8Array {
  return ifinfomsg({ index, flags: IFF_UP, change: IFF_UP });
}

/**
 * RTM_NEWADDR / RTM_DELADDR body for an address with its prefix: IPv4 with its broadcast address;
 * IPv6 flagged NODAD (a gateway the daemon owns for its pool needs no duplicate detection, and
 * without the flag it stays tentative, unusable, until the bridge has carrier).
 */
export function encodeAddress(args: {
  readonly index: number;
  readonly family: 4 | 6;
  readonly ip: bigint;
  readonly prefix: number;
}): Uint8Array {
  const head = new Uint8Array(IFADDRMSG_LEN);
  const view = new DataView(head.buffer);
  view.setUint8(0, args.family === 4 ? AF_INET : AF_INET6);
  view.setUint8(1, args.prefix);
  view.setUint8(2, args.family === 4 ? 0 : IFA_F_NODAD);
  view.setUint8(3, 0); // RT_SCOPE_UNIVERSE
  view.setUint32(4, args.index, LE);
  const parts = [
    head,
    encodeAttr(IFA_LOCAL, addressBytes(args.family, args.ip)),
    encodeAttr(IFA_ADDRESS, addressBytes(args.family, args.ip)),
  ];
  if (args.family === 4) {
    const hostMask = (1n << BigInt(32 - args.prefix)) - 1n;
    parts.push(encodeAttr(IFA_BROADCAST, addressBytes(4, args.ip | hostMask)));
  }
  return concat(parts);
}

/** A link as read back from RTM_NEWLINK (the answer to RTM_GETLINK). */
export interface LinkInfo {
  readonly index: number;
  readonly flags: number;
  readonly up: boolean;
  readonly name: string | undefined;
  readonly kind: string | undefined;
  /** The index of the link this one is a port of (its bridge), when it is one. */
  readonly master: number | undefined;
}

function* attrs(buf: Uint8Array, from: number): Generator<{ type: number; data: Uint8Array }> {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = from;
  while (at + 4 <= buf.length) {
    const len = view.getUint16(at, LE);
    if (len < 4 || at + len > buf.length) return;
    yield { type: view.getUint16(at + 2, LE) & 0x3fff, data: buf.subarray(at + 4, at + len) };
    at += align4(len);
  }
}

function readCString(data: Uint8Array): string {
  const end = data.indexOf(0);
  return new TextDecoder().decode(end < 0 ? data : data.subarray(0, end));
}

/** Decodes an RTM_NEWLINK body; throws a plain Error when it is shorter than ifinfomsg. */
export function decodeLink(body: Uint8Array): LinkInfo {
  if (body.length < IFINFOMSG_LEN) throw new Error('short ifinfomsg');
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const index = view.getInt32(4, LE);
  const flags = view.getUint32(8, LE);
  let name: string | undefined;
  let kind: string | undefined;
  let master: number | undefined;
  for (const a of attrs(body, IFINFOMSG_LEN)) {
    if (a.type === IFLA_IFNAME) name = readCString(a.data);
    if (a.type === IFLA_MASTER && a.data.length >= 4) master = readU32(a.data);
    if (a.type === IFLA_LINKINFO) {
      for (const inner of attrs(a.data, 0))
        if (inner.type === IFLA_INFO_KIND) kind = readCString(inner.data);
    }
  }
  return { index, flags, up: (flags & IFF_UP) !== 0, name, kind, master };
}

function readU32(data: Uint8Array): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, LE);
}

function readAddress(data: Uint8Array): bigint {
  let v = 0n;
  for (const byte of data) v = (v << 8n) | BigInt(byte);
  return v;
}

/** A route as read back from RTM_NEWROUTE (the answer to an RTM_GETROUTE dump). */
export interface RouteInfo {
  readonly family: 4 | 6;
  /** The destination network's address (0 for a default route) and prefix length. */
  readonly dst: bigint;
  readonly prefix: number;
  /** The routing table's id (RTA_TABLE when present, which holds ids above 255). */
  readonly table: number;
  /** rtm_type: {@link RTN_UNICAST} for a route to a network. */
  readonly type: number;
  /** The output interfaces' indexes: RTA_OIF, or every next hop's of a multipath route. */
  readonly interfaces: readonly number[];
  /** The next hop's address (RTA_GATEWAY), when the route has one. */
  readonly gateway: bigint | undefined;
}

/**
 * Decodes an RTM_NEWROUTE body; `undefined` for a route of another family than IPv4 or IPv6.
 * Throws a plain Error when it is shorter than rtmsg.
 */
export function decodeRoute(body: Uint8Array): RouteInfo | undefined {
  if (body.length < RTMSG_LEN) throw new Error('short rtmsg');
  const af = body[0];
  if (af !== AF_INET && af !== AF_INET6) return undefined;
  let dst = 0n;
  let table = body[4] ?? 0;
  let gateway: bigint | undefined;
  const interfaces: number[] = [];
  for (const a of attrs(body, RTMSG_LEN)) {
    if (a.type === RTA_DST) dst = readAddress(a.data);
    else if (a.type === RTA_TABLE && a.data.length >= 4) table = readU32(a.data);
    else if (a.type === RTA_OIF && a.data.length >= 4) interfaces.push(readU32(a.data));
    else if (a.type === RTA_GATEWAY) gateway = readAddress(a.data);
    else if (a.type === RTA_MULTIPATH) interfaces.push(...nextHopInterfaces(a.data));
  }
  return {
    family: af === AF_INET ? 4 : 6,
    dst,
    prefix: body[1] ?? 0,
    table,
    type: body[7] ?? 0,
    interfaces,
    gateway,
  };
}

/** The rtnh_ifindex of each struct rtnexthop in an RTA_MULTIPATH payload. */
function nextHopInterfaces(data: Uint8Array): number[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out: number[] = [];
  for (let at = 0; at + RTNEXTHOP_LEN <= data.length;) {
    const len = view.getUint16(at, LE);
    if (len < RTNEXTHOP_LEN) break;
    out.push(view.getInt32(at + 4, LE));
    at += align4(len);
  }
  return out;
}

/** The errno of an NLMSG_ERROR body: 0 for an ACK, a positive errno otherwise. */
export function decodeErrno(body: Uint8Array): number {
  if (body.length < 4) throw new Error('short nlmsgerr');
  return 0 - new DataView(body.buffer, body.byteOffset, body.byteLength).getInt32(0, LE);
}
