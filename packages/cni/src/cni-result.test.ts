import { describe, expect, it } from 'vitest';
import { CniError } from './cni-error.js';
import { formatError, formatResult, printJson, routeFor } from './cni-result.js';
import type { SpecVersion } from './spec-versions.js';

const dual = { ips: ['10.65.79.2/26', 'fd5f:abcd:64:4f2c::7/122'] };

describe('formatResult', () => {
  it.each<SpecVersion>(['0.3.0', '0.3.1', '0.4.0'])('%s: IPs carry "version"', (v) => {
    expect(formatResult(dual, v)).toEqual({
      cniVersion: v,
      ips: [
        { version: '4', address: '10.65.79.2/26' },
        { version: '6', address: 'fd5f:abcd:64:4f2c::7/122' },
      ],
      routes: [{ dst: '10.65.79.0/26' }, { dst: 'fd5f:abcd:64:4f2c::/122' }],
      dns: {},
    });
  });

  it.each<SpecVersion>(['1.0.0', '1.1.0'])(
    '%s: no "version", no gateway, no interfaces; "dns": {} as calico-ipam prints it',
    (v) => {
      expect(formatResult(dual, v)).toEqual({
        cniVersion: v,
        ips: [{ address: '10.65.79.2/26' }, { address: 'fd5f:abcd:64:4f2c::7/122' }],
        routes: [{ dst: '10.65.79.0/26' }, { dst: 'fd5f:abcd:64:4f2c::/122' }],
        dns: {},
      });
    },
  );

  it('prints fields in libcni order, and no routes when there are none (Go omitempty)', () => {
    expect(printJson(formatResult({ ips: ['10.1.0.9/32'], noRoutes: true }, '1.0.0'))).toBe(
      '{\n    "cniVersion": "1.0.0",\n    "ips": [\n        {\n            "address": "10.1.0.9/32"\n        }\n    ],\n    "dns": {}\n}\n',
    );
    expect(Object.keys(formatResult(dual, '1.1.0'))).toEqual([
      'cniVersion',
      'ips',
      'routes',
      'dns',
    ]);
  });

  it.each<[SpecVersion, string]>([
    ['0.3.1', '10.1.0.9/32'],
    ['1.1.0', 'fd00::9/128'],
  ])('%s: an explicit IP keeps its host mask', (v, address) => {
    const r = formatResult({ ips: [address] }, v);
    expect(r.ips[0]).toMatchObject({ address });
    expect(r.routes).toEqual([{ dst: address }]);
  });

  it('routes are the address prefix with host bits masked', () => {
    expect(routeFor('10.0.0.77/26')).toEqual({ dst: '10.0.0.64/26' });
    expect(routeFor('10.0.0.77/32')).toEqual({ dst: '10.0.0.77/32' });
  });
});

describe('error JSON', () => {
  it('has code and msg, details only when set, cniVersion when known', () => {
    expect(formatError(new CniError(7, 'bad'))).toEqual({ code: 7, msg: 'bad' });
    expect(formatError(new CniError(1, 'incompatible', { details: 'x' }), '1.0.0')).toEqual({
      cniVersion: '1.0.0',
      code: 1,
      msg: 'incompatible',
      details: 'x',
    });
  });

  it('prints with four-space indentation like libcni', () => {
    expect(printJson({ code: 1 })).toBe('{\n    "code": 1\n}\n');
  });
});
