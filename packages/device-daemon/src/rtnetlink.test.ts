import { rt } from 'netlink';
import { describe, expect, it } from 'vitest';
import {
  decodeErrno,
  decodeLink,
  encodeAttr,
  encodeAddress,
  encodeLinkByName,
  encodeNewBridge,
  encodeSetLinkUp,
} from './rtnetlink.js';

// The `netlink` package's own rtnetlink parser is the independent oracle for our encoder.
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
});
