import type { OutputFormat } from '../output/render-output.js';
import { renderOutput } from '../output/render-output.js';
import type { ResourceKind, ResourceObject } from './resource-kind.js';
import { withTypeMeta } from './resource-kind.js';
import { renderResourceTable } from './resource-table.js';

/**
 * A list of resources as calicoctl writes one (`get KIND -o yaml|json`): Calico's typed list
 * (`IPPoolList`, `NodeList`, ...) with its items, keys in calicoctl's order (sorted in YAML, the
 * Go struct's order in JSON). `apply -f` and `create -f` read it back.
 */
function resourceList(
  kind: ResourceKind,
  items: readonly ResourceObject[],
  format: 'json' | 'yaml',
): Record<string, unknown> {
  const typed = items.map((r) => withTypeMeta(kind, r));
  const apiVersion = 'projectcalico.org/v3';
  return format === 'yaml'
    ? { apiVersion, items: typed, kind: `${kind}List`, metadata: {} }
    : { kind: `${kind}List`, apiVersion, metadata: {}, items: typed };
}

/**
 * Renders resources of one kind: a listing for `table` and `wide`; for `json` and `yaml`, the one
 * resource when `single` (`ippool get NAME`, `get ippool NAME`), else the kind's typed list
 * (`IPPoolList`), both of which `apply -f` and `create -f` take back.
 */
export function renderResources(
  kind: ResourceKind,
  items: readonly ResourceObject[],
  options: { readonly format: OutputFormat; readonly single: boolean },
): string {
  const { format, single } = options;
  const data =
    format !== 'json' && format !== 'yaml'
      ? undefined
      : single && items.length === 1
        ? withTypeMeta(kind, items[0]!)
        : resourceList(kind, items, format);
  return renderOutput(format, data, (wide) => renderResourceTable(kind, items, wide));
}
