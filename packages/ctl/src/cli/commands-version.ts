import { isDatastoreConfigError } from '@netledger/datastore-config';
import type { Datastore } from '@netledger/ipam-core';
import { toCtlError } from '../config/datastore-config.js';
import { CtlError } from '../ctl-error.js';
import { showVersion } from '../commands/show-version.js';
import { parseOutputFormat, renderOutput } from '../output/render-output.js';
import type { CommandSpec } from './command-spec.js';
import { str } from './command-spec.js';

const commit = (c: string | undefined) => (c === undefined ? {} : { commit: c });

/** `version`. */
export const VERSION_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['version'],
    summary:
      "Show netledgerctl's version and commit, and the datastore's type and cluster version.",
    usage: 'version [-o table|json|yaml]',
    help: `  -o, --output FORMAT   table (default), json or yaml
With a datastore configured (-c, a default config file or a store variable), or the default file
store present, also its type and the ClusterInformation's Calico version and cluster type; the
datastore is only read.`,
    example: 'netledgerctl version -c /etc/calico/calicoctl.cfg',
    options: { output: { type: 'string', short: 'o' } },
    store: 'none',
    async run(ctx, f) {
      const format = parseOutputFormat(str(f, 'output'), 'table');
      const { config, source } = await ctx.datastoreConfig();
      let store: Datastore | undefined;
      try {
        store = await ctx.io.openDatastore(config, { mayCreate: false, readOnly: true });
      } catch (e) {
        // Nothing configured and no default file store: there is no cluster to report.
        const none = source === 'default' && isDatastoreConfigError(e) && e.code === 'NoDatastore';
        if (!none) {
          // As calicoctl: the client's lines, then why the cluster's are missing.
          const client = await showVersion(commit(ctx.io.commit));
          ctx.io.stdout(renderOutput(format, client.data, () => client.text));
          const reason = toCtlError(e);
          throw new CtlError(
            'Failed',
            `unable to retrieve the cluster version: ${reason instanceof Error ? reason.message : String(reason)}`,
            { cause: e },
          );
        }
      }
      try {
        const shown = await showVersion({
          ...commit(ctx.io.commit),
          ...(store && { datastore: { store, type: config.type } }),
        });
        return { text: renderOutput(format, shown.data, () => shown.text) };
      } finally {
        await store?.close();
      }
    },
  },
];
