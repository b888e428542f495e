import { describe, expect, it } from 'vitest';
import { readDefaultKubeControllersConfiguration } from './read-default-configuration.js';

/** A cluster whose API holds `objects` by group; anything else is a 404 (as client-node throws). */
function customApi(objects: Record<string, unknown>) {
  const asked: string[] = [];
  return {
    asked,
    getClusterCustomObject: async (p: { group: string; version: string; name: string }) => {
      asked.push(`${p.group}/${p.version} ${p.name}`);
      const found = objects[p.group];
      if (found === undefined) throw Object.assign(new Error('not found'), { code: 404 });
      return found;
    },
  };
}

const spec = { controllers: { node: { leakGracePeriod: '1m' } } };

describe('readDefaultKubeControllersConfiguration', () => {
  it('reads the v1 CRD first', async () => {
    const api = customApi({ 'crd.projectcalico.org': { metadata: { name: 'default' }, spec } });
    await expect(readDefaultKubeControllersConfiguration(api)).resolves.toEqual({
      name: 'default',
      spec,
    });
    expect(api.asked).toEqual(['crd.projectcalico.org/v1 default']);
  });

  it('falls back to the v3 CRD when the v1 one does not exist', async () => {
    const api = customApi({ 'projectcalico.org': { metadata: { name: 'default' }, spec } });
    await expect(readDefaultKubeControllersConfiguration(api)).resolves.toEqual({
      name: 'default',
      spec,
    });
    expect(api.asked).toEqual(['crd.projectcalico.org/v1 default', 'projectcalico.org/v3 default']);
  });

  it('is undefined when neither exists', async () => {
    await expect(readDefaultKubeControllersConfiguration(customApi({}))).resolves.toBeUndefined();
  });
});
