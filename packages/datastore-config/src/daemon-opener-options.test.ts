import { describe, expect, it } from 'vitest';
import { daemonOpenerOptions, processUser } from './daemon-opener-options.js';

describe('daemonOpenerOptions', () => {
  it("the HTTP gateway by default; gRPC refused naming the program; this process's user", async () => {
    const onFileWarning = (): void => undefined;
    const o = daemonOpenerOptions('netledger-node', { file: { historyLimit: 5 }, onFileWarning });
    expect(o).toMatchObject({ etcd: { transport: 'http' }, file: { historyLimit: 5 } });
    expect(o.onFileWarning).toBe(onFileWarning);
    await expect(o.etcd.loadGrpc()).rejects.toThrow(
      'the gRPC transport to etcd is not built into netledger-node',
    );
    expect(o.user()).toEqual(processUser());
    expect(processUser().uid).toBe(process.getuid?.());
  });
});
