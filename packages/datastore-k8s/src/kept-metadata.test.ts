import { describe, expect, it } from 'vitest';
import { keptMetadata, withKeptMetadata } from './kept-metadata.js';

describe('the metadata an update of an IPAM object keeps', () => {
  const stored = {
    apiVersion: 'crd.projectcalico.org/v1',
    kind: 'IPAMBlock',
    metadata: {
      name: '10-0-0-0-26',
      uid: 'u1',
      resourceVersion: '7',
      creationTimestamp: '2026-01-01T00:00:00Z',
      generation: 3,
      managedFields: [{ manager: 'calico' }],
      labels: { team: 'net' },
      annotations: {
        'projectcalico.org/metadata': '{"creationTimestamp":null}',
        'example.com/note': 'kept',
        'netledger.io/rewritten-at': '6',
      },
      finalizers: ['example.com/hold'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'n-u' }],
    },
    spec: { cidr: '10.0.0.0/26' },
  };

  it("keeps labels, annotations (not netledger's rewrite mark), finalizers and owners only", () => {
    expect(keptMetadata(stored)).toEqual({
      labels: { team: 'net' },
      annotations: {
        'projectcalico.org/metadata': '{"creationTimestamp":null}',
        'example.com/note': 'kept',
      },
      finalizers: ['example.com/hold'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'n-u' }],
    });
    expect(
      keptMetadata({
        metadata: {
          name: 'x',
          labels: {},
          annotations: { 'netledger.io/rewritten-at': '6' },
          finalizers: [],
        },
      }),
    ).toEqual({});
    expect(keptMetadata({})).toEqual({});
  });

  it('merges them under what the writer sets, key by key, changing neither argument', () => {
    const body = {
      kind: 'BlockAffinity',
      metadata: {
        name: 'n1-10-0-0-0-26',
        labels: { 'projectcalico.org/affinity-type': 'host' },
        annotations: { 'projectcalico.org/metadata': '{}' },
      },
      spec: { node: 'n1' },
    };
    const kept = keptMetadata({
      metadata: {
        labels: { 'projectcalico.org/affinity-type': 'virtual', team: 'net' },
        annotations: { 'projectcalico.org/metadata': '{"x":1}', note: 'n' },
        finalizers: ['f'],
      },
    });
    const before = JSON.stringify([body, kept]);
    expect(withKeptMetadata(body, kept)).toEqual({
      kind: 'BlockAffinity',
      metadata: {
        name: 'n1-10-0-0-0-26',
        labels: { 'projectcalico.org/affinity-type': 'host', team: 'net' },
        annotations: { 'projectcalico.org/metadata': '{}', note: 'n' },
        finalizers: ['f'],
      },
      spec: { node: 'n1' },
    });
    expect(JSON.stringify([body, kept])).toBe(before);
    expect(withKeptMetadata(body, {})).toEqual(body);
  });
});
