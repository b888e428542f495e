import { describe, expect, it } from 'vitest';
import { unknownResourceFields } from './unknown-fields.js';

describe('unknownResourceFields (calicoctl strict decoding)', () => {
  it('accepts every field of the v3 types, as `get -o yaml` prints them', () => {
    expect(
      unknownResourceFields('IPPool', {
        apiVersion: 'projectcalico.org/v3',
        kind: 'IPPool',
        metadata: {
          name: 'p1',
          uid: 'u',
          resourceVersion: '3',
          creationTimestamp: '2026-01-01T00:00:00Z',
          labels: { a: 'b' },
          annotations: { c: 'd' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }],
        },
        spec: {
          cidr: '10.0.0.0/16',
          blockSize: 26,
          ipipMode: 'Never',
          vxlanMode: 'Never',
          natOutgoing: true,
          disabled: false,
          disableBGPExport: false,
          nodeSelector: 'all()',
          namespaceSelector: '',
          allowedUses: ['Workload'],
          assignmentMode: 'Automatic',
        },
        status: { conditions: [{ type: 'Allocatable', status: 'True', reason: 'OK' }] },
      }),
    ).toEqual([]);
    expect(
      unknownResourceFields('Node', {
        metadata: { name: 'n1' },
        spec: {
          bgp: { ipv4Address: '10.0.0.1/24', asNumber: 64512 },
          addresses: [{ address: '10.0.0.1', type: 'InternalIP' }],
          orchRefs: [{ nodeName: 'n1', orchestrator: 'k8s' }],
        },
        status: { podCIDRs: ['10.244.0.0/24'] },
      }),
    ).toEqual([]);
    expect(
      unknownResourceFields('IPAMConfiguration', {
        metadata: { name: 'default' },
        spec: { strictAffinity: true, autoAllocateBlocks: true, maxBlocksPerHost: 4 },
      }),
    ).toEqual([]);
  });

  it.each([
    ['IPPool', { metadata: { name: 'p' }, spec: { cidrr: '10.0.0.0/16' } }, ['spec.cidrr']],
    ['IPPool', { metadata: { name: 'p' }, specs: { cidr: '10.0.0.0/16' } }, ['specs']],
    ['IPPool', { metadata: { name: 'p', label: {} }, spec: {} }, ['metadata.label']],
    ['IPPool', { spec: { CIDR: '10.0.0.0/16' } }, ['spec.CIDR (did you mean cidr?)']],
    [
      'IPPool',
      { status: { conditions: [{ type: 'x', severity: 'y' }] } },
      ['status.conditions[0].severity'],
    ],
    ['IPReservation', { spec: { reservedCIDRs: [], cidrs: [] } }, ['spec.cidrs']],
    ['IPReservation', { spec: {}, status: {} }, ['status']],
    [
      'Node',
      { spec: { addresses: [{ adress: '10.0.0.1' }], bgp: { asn: 1 } } },
      ['spec.addresses[0].adress', 'spec.bgp.asn'],
    ],
    [
      'IPAMConfiguration',
      { spec: { strictaffinity: true } },
      ['spec.strictaffinity (did you mean strictAffinity?)'],
    ],
  ] as const)('%s %j: %j', (kind, resource, paths) => {
    expect(unknownResourceFields(kind, resource)).toEqual(paths);
  });
});
