import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, parseWorkloadAnnotations } from './workload-annotations.js';

const parse = (pod: Record<string, string>, namespace: Record<string, string> = {}) =>
  parseWorkloadAnnotations({ pod, namespace });

describe('parseWorkloadAnnotations', () => {
  it('takes pools and families from the pod over the namespace, key by key', () => {
    expect(
      parse(
        { [ANNOTATIONS.ipv4Pools]: '["pod-pool"]', [ANNOTATIONS.ipv6Pools]: '' },
        {
          [ANNOTATIONS.ipv4Pools]: '["ns-pool"]',
          [ANNOTATIONS.ipv6Pools]: '["fd00::/64"]',
          [ANNOTATIONS.ipFamilies]: '["IPv6"]',
        },
      ),
    ).toEqual({
      ipv4Pools: ['pod-pool'],
      ipv6Pools: ['fd00::/64'],
      families: { ipv4: false, ipv6: true },
    });
  });

  it('reads ipAddrs, ipAddrsNoIpam and floatingIPs from the pod only, canonicalising addresses', () => {
    const ns = { [ANNOTATIONS.ipAddrs]: '["10.0.0.9"]', [ANNOTATIONS.floatingIps]: '["1.2.3.4"]' };
    expect(parse({}, ns)).toEqual({});
    expect(parse({ [ANNOTATIONS.ipAddrs]: '["10.0.0.5", "FD00:0::5"]' })).toEqual({
      ipAddrs: ['10.0.0.5', 'fd00::5'],
    });
    expect(parse({ [ANNOTATIONS.ipAddrsNoIpam]: '["10.9.9.9"]' })).toEqual({
      ipAddrsNoIpam: ['10.9.9.9'],
    });
    expect(parse({ [ANNOTATIONS.floatingIps]: '["1.2.3.4"]' })).toEqual({
      floatingIps: ['1.2.3.4'],
    });
  });

  it.each([
    [
      { [ANNOTATIONS.ipv4Pools]: '[pool' },
      /error parsing cni.projectcalico.org\/ipv4pools "\[pool": /,
    ],
    [{ [ANNOTATIONS.ipv4Pools]: '"pool"' }, /not a JSON list of strings/],
    [{ [ANNOTATIONS.ipv4Pools]: '["fd00::/64"]' }, /"fd00::" isn't a IPv4 address/],
    [{ [ANNOTATIONS.ipv6Pools]: '["10.0.0.0/33"]' }, /invalid CIDR address/],
    [{ [ANNOTATIONS.ipFamilies]: '["IPv5"]' }, /error parsing ipFamilies: unknown family "IPv5"/],
    [{ [ANNOTATIONS.ipFamilies]: '[]' }, /error parsing ipFamilies: no family/],
    [
      { [ANNOTATIONS.ipAddrs]: 'nope' },
      /failed to parse IPs nope for annotation "cni.projectcalico.org\/ipAddrs": failed to parse 'nope' as JSON/,
    ],
    [
      { [ANNOTATIONS.ipAddrs]: '[]' },
      /annotation "cni.projectcalico.org\/ipAddrs" specified but empty/,
    ],
    [{ [ANNOTATIONS.ipAddrs]: '["10.0.0.300"]' }, /invalid IP format: 10.0.0.300/],
    [
      { [ANNOTATIONS.ipAddrsNoIpam]: '["10.0.0.1","10.0.0.2"]' },
      /cannot have more than one IPv4 address for "cni.projectcalico.org\/ipAddrsNoIpam" annotation/,
    ],
    [
      { [ANNOTATIONS.ipAddrs]: '["10.0.0.1"]', [ANNOTATIONS.ipAddrsNoIpam]: '["10.0.0.2"]' },
      /can't have both annotations: 'ipAddrs' and 'ipAddrsNoIpam' in use at the same time/,
    ],
    [
      { [ANNOTATIONS.floatingIps]: '["x"]' },
      /invalid IP format in cni.projectcalico.org\/floatingIPs: x/,
    ],
  ])('refuses %o with code 7', (pod, message) => {
    expect(() => parse(pod)).toThrow(message);
    expect(() => parse(pod)).toThrow(expect.objectContaining({ code: 7 }) as Error);
  });
});
