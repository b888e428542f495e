import { describe, expect, it } from 'vitest';
import { parseFeatureControl } from './feature-control.js';

describe('parseFeatureControl', () => {
  it('reads feature_control from ipam, else the top level; flags default off', () => {
    expect(parseFeatureControl({}, {})).toEqual({ ipAddrsNoIpam: false, floatingIps: false });
    expect(parseFeatureControl({ feature_control: { floating_ips: true } }, {})).toEqual({
      ipAddrsNoIpam: false,
      floatingIps: true,
    });
    expect(
      parseFeatureControl(
        { feature_control: { floating_ips: true } },
        { feature_control: { ip_addrs_no_ipam: true } },
      ),
    ).toEqual({ ipAddrsNoIpam: true, floatingIps: false });
  });

  it.each([
    [{ feature_control: 'yes' }, /feature_control must be an object/],
    [
      { feature_control: { floating_ips: 'true' } },
      /feature_control.floating_ips must be a JSON boolean/,
    ],
  ])('refuses %o with code 6', (top, message) => {
    expect(() => parseFeatureControl(top, {})).toThrow(message);
    expect(() => parseFeatureControl(top, {})).toThrow(
      expect.objectContaining({ code: 6 }) as Error,
    );
  });
});
