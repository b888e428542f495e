import { rt } from 'netlink';
import { describe, expect, it } from 'vitest';
import {
  decodeErrno,
  decodeLink,
  decodeRoute,
  encodeAttr,
  encodeAddress,
  encodeLinkByName,
  encodeLinkDump,
  encodeNewBridge,
  encodeRouteDump,
  encodeSetLinkUp,
  RT_TABLE_LOCAL,
  RTN_UNICAST,
} from './rtnetlink.js';
import { linkMessage, routeMessage } from './test-netlink-messages.js';

// The `netlink` package's own rtnetlink parser is the independent oracle for our encoder, and
// its formatter (test-netlink-messages.ts) writes the kernel's answers our decoder reads.
const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

describe('rtnetlink encoding', () => {
  it('pads attributes to 4 bytes and records the unpadded length', () => {
    const a = encodeAttr(3, new Uint8Array([1, 2, 3, 4, 5]));
    expect(a.length).toBe(12);
    expect(new DataView(a.buffer).getUint16(0, true)).toBe(9);
  });

  it('encodes a bridge creation the kernel structs understand', () => {
    const msg = rt.parseLinkMessage(buf(encodeNewBridge('pvbr0')));
    expect(msg.attrs.ifname).toBe('pvbr0');
    // IFLA_LINKINFO stays raw in the oracle: one nested IFLA_INFO_KIND (1) of "bridge\0".
    expect([...msg.attrs.linkinfo!]).toEqual([11, 0, 1, 0, ...Buffer.from('bridge\0'), 0]);
    expect(msg.data.index).toBe(0);
  });

  it('encodes link-by-name and set-up', () => {
    expect(rt.parseLinkMessage(buf(encodeLinkByName('lxcbr0'))).attrs.ifname).toBe('lxcbr0');
    const up = rt.parseLinkMessage(buf(encodeSetLinkUp(7)));
    expect(up.data).toMatchObject({ index: 7, flags: { up: true }, change: { up: true } });
  });

  it('encodes an IPv4 address with prefix and broadcast', () => {
    const msg = rt.parseAddressMessage(
      buf(encodeAddress({ index: 4, family: 4, ip: 0x0a000501n, prefix: 24 })),
    );
    expect(msg.data).toMatchObject({ family: 2, prefixlen: 24, index: 4 });
    expect(msg.data.flags?.nodad).toBeFalsy();
    expect([...msg.attrs.local!]).toEqual([10, 0, 5, 1]);
    expect([...msg.attrs.address!]).toEqual([10, 0, 5, 1]);
    expect([...msg.attrs.broadcast!]).toEqual([10, 0, 5, 255]);
  });

  it('encodes an IPv6 address with its prefix, NODAD and no broadcast', () => {
    // fd00:5::1
    const ip = (0xfd000005n << 96n) | 1n;
    const msg = rt.parseAddressMessage(buf(encodeAddress({ index: 9, family: 6, ip, prefix: 64 })));
    expect(msg.data).toMatchObject({ family: 10, prefixlen: 64, index: 9, flags: { nodad: true } });
    const bytes = [0xfd, 0, 0, 5, ...new Array<number>(11).fill(0), 1];
    expect([...msg.attrs.local!]).toEqual(bytes);
    expect([...msg.attrs.address!]).toEqual(bytes);
    expect(msg.attrs.broadcast).toBeUndefined();
  });

  it('decodes what it encodes', () => {
    expect(decodeLink(encodeNewBridge('br-x'))).toMatchObject({
      index: 0,
      name: 'br-x',
      kind: 'bridge',
      up: false,
    });
    expect(decodeLink(encodeSetLinkUp(3))).toMatchObject({ index: 3, up: true, name: undefined });
  });

  it('decodes netlink errors and acks', () => {
    const err = new Uint8Array(20);
    new DataView(err.buffer).setInt32(0, -17, true);
    expect(decodeErrno(err)).toBe(17);
    expect(decodeErrno(new Uint8Array(20))).toBe(0);
    expect(() => decodeLink(new Uint8Array(3))).toThrow();
  });

  it('encodes dump requests for every link and every route of every family', () => {
    expect(rt.parseLinkMessage(buf(encodeLinkDump()))).toMatchObject({
      data: { family: 0, index: 0 },
      attrs: {},
    });
    const route = encodeRouteDump();
    expect(route.length).toBe(12); // a whole rtmsg, family AF_UNSPEC: the kernel dumps both
    expect(rt.parseRouteMessage(buf(route)).data).toMatchObject({ family: 0, dstLen: 0, table: 0 });
  });

  it('decodes the bridge a link is a port of', () => {
    expect(decodeLink(linkMessage({ index: 9, name: 'veth-app', master: 7 }))).toMatchObject({
      index: 9,
      name: 'veth-app',
      master: 7,
    });
    expect(decodeLink(linkMessage({ index: 7, name: 'pvbr0' })).master).toBeUndefined();
  });

  it('decodes an IPv4 route: destination, prefix, table, type and output interface', () => {
    const r = decodeRoute(routeMessage({ family: 4, dst: '10.0.3.0', prefix: 24, oif: 5 }));
    expect(r).toEqual({
      family: 4,
      dst: 0x0a000300n,
      prefix: 24,
      table: 254,
      type: RTN_UNICAST,
      interfaces: [5],
      gateway: undefined,
    });
  });

  it('decodes an IPv6 route, a default route through a gateway, and a local-table entry', () => {
    expect(
      decodeRoute(routeMessage({ family: 6, dst: 'fd00:5::', prefix: 64, oif: 3 })),
    ).toMatchObject({ family: 6, dst: 0xfd000005n << 96n, prefix: 64, interfaces: [3] });
    expect(
      decodeRoute(routeMessage({ family: 4, prefix: 0, oif: 2, gateway: '192.0.2.1' })),
    ).toMatchObject({ dst: 0n, prefix: 0, interfaces: [2], gateway: 0xc0000201n });
    expect(
      decodeRoute(
        routeMessage({ family: 4, dst: '10.0.3.5', prefix: 32, oif: 5, table: 255, type: 2 }),
      ),
    ).toMatchObject({ table: RT_TABLE_LOCAL, type: 2 });
  });

  it('takes a table id above 255 from RTA_TABLE, and every next hop of a multipath route', () => {
    const r = decodeRoute(
      routeMessage({ family: 4, dst: '10.9.0.0', prefix: 16, table: 1000, nexthops: [4, 6] }),
    );
    expect(r).toMatchObject({ table: 1000, interfaces: [4, 6] });
  });

  it('skips routes of other families and refuses a short rtmsg', () => {
    const mpls = new Uint8Array(12);
    mpls[0] = 28; // AF_MPLS
    expect(decodeRoute(mpls)).toBeUndefined();
    expect(() => decodeRoute(new Uint8Array(11))).toThrow('short rtmsg');
  });
});
