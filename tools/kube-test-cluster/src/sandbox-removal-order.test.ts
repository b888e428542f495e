import { describe, expect, it } from 'vitest';
import { sandboxRemovalOrder } from './sandbox-removal-order.js';

const sandbox = (id: string, network?: string) => ({
  status: { id, linux: { namespaces: { options: network ? { network } : {} } } },
});

describe('sandboxRemovalOrder', () => {
  it('removes pod-network sandboxes before host-network ones (the agent serving their DEL)', () => {
    expect(
      sandboxRemovalOrder([sandbox('agent', 'NODE'), sandbox('web', 'POD'), sandbox('db')]),
    ).toEqual({ podNetwork: ['web', 'db'], hostNetwork: ['agent'] });
  });

  it('takes the single object crictl prints for one sandbox, and skips one without an id', () => {
    expect(sandboxRemovalOrder(sandbox('only', 'POD'))).toEqual({
      podNetwork: ['only'],
      hostNetwork: [],
    });
    expect(sandboxRemovalOrder([{}, sandbox('a', 'NODE')])).toEqual({
      podNetwork: [],
      hostNetwork: ['a'],
    });
  });
});
