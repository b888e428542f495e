import { describe, expect, it } from 'vitest';
import type { DatastoreConfigErrorCode } from './datastore-config-error.js';
import { readCalicoApiConfigSettings } from './read-calico-api-config-settings.js';

describe('readCalicoApiConfigSettings', () => {
  it('reads the spec keys calicoctl reads, naming them after the file', () => {
    const source = readCalicoApiConfigSettings(
      {
        kind: 'CalicoAPIConfig',
        spec: { datastoreType: 'etcdv3', etcdEndpoints: 'http://e:1', etcdUsername: '' },
      },
      'c.yaml',
    );
    expect(source.values).toEqual({ datastoreType: 'etcdv3', etcdEndpoints: 'http://e:1' });
    expect(source.names.etcdEndpoints).toBe('spec.etcdEndpoints in c.yaml');
    expect(readCalicoApiConfigSettings({ kind: 'CalicoAPIConfig' }).values).toEqual({});
  });

  it.each<[string, unknown, DatastoreConfigErrorCode, string]>([
    ['another kind', { kind: 'Other' }, 'InvalidValue', 'c: expected kind CalicoAPIConfig'],
    ['not a mapping', 'text', 'InvalidValue', 'c: expected kind CalicoAPIConfig'],
    ['an empty document', null, 'InvalidValue', 'c: expected kind CalicoAPIConfig'],
    [
      'another apiVersion',
      { apiVersion: 'v1', kind: 'CalicoAPIConfig' },
      'InvalidValue',
      'c: unsupported apiVersion "v1" (projectcalico.org/v3)',
    ],
    [
      'a spec list',
      { kind: 'CalicoAPIConfig', spec: [] },
      'InvalidValue',
      'c: spec must be a mapping',
    ],
    [
      'a spec value that is not a string',
      { kind: 'CalicoAPIConfig', spec: { etcdEndpoints: 5 } },
      'WrongType',
      'c: spec.etcdEndpoints must be a string',
    ],
    [
      'an empty spec value (YAML null)',
      { kind: 'CalicoAPIConfig', spec: { datastoreType: null } },
      'WrongType',
      'c: spec.datastoreType must be a string',
    ],
  ])('refuses %s', (_, doc, code, message) => {
    expect(() => readCalicoApiConfigSettings(doc, 'c')).toThrow(
      expect.objectContaining({ code, message }),
    );
  });
});
