import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * Where containerd 1.6 puts the socket of the runc shim of task `id`: not under its state dir
 * but in `/run/containerd/s/<sha256 of "<containerd socket>/<namespace>/<id>">` (containerd's
 * runtime/v2/shim SocketAddress). A shim removes it when it exits normally; `down` removes the
 * ones a killed shim left.
 */
export function shimSocketPath(o: {
  containerdSocket: string;
  namespace: string;
  id: string;
}): string {
  const hash = createHash('sha256')
    .update(join(o.containerdSocket, o.namespace, o.id))
    .digest('hex');
  return join('/run/containerd/s', hash);
}
