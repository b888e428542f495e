import { formatIp, parseIp } from '@netledger/accounting';
import { CniError, CniErrorCode } from './cni-error.js';

/** CNI_ARGS as calico-ipam reads them. */
export interface CniArgs {
  /** Both pod keys were given: the orchestrator is Kubernetes. */
  readonly k8s?: { readonly namespace: string; readonly pod: string };
  /** `IP=`: one explicit address, canonicalised. */
  readonly ip?: string;
}

const KNOWN = new Set([
  'IgnoreUnknown',
  'K8S_POD_NAMESPACE',
  'K8S_POD_NAME',
  'K8S_POD_INFRA_CONTAINER_ID',
  'K8S_POD_UID',
  'IP',
]);

const invalid = (msg: string): CniError =>
  new CniError(CniErrorCode.InvalidEnvironmentVariables, msg);

/** Go's `UnmarshallableBool`, used for `IgnoreUnknown`. */
function parseBool(pair: string, v: string): boolean {
  if (v === '1' || v === 'true' || v === 'True') return true;
  if (v === '0' || v === 'false' || v === 'False') return false;
  throw invalid(
    `ARGS: error parsing value of pair ${JSON.stringify(pair)}: boolean unmarshal error: invalid input ${v}`,
  );
}

/**
 * Parses CNI_ARGS (`K=V;K=V`) like libcni's `LoadArgs`: a pair without exactly one `=` fails,
 * and an unknown key fails unless `IgnoreUnknown` is true. Errors are `InvalidEnvironmentVariables`
 * (4). `K8S_POD_NAMESPACE` and `K8S_POD_NAME` together make the request a Kubernetes one.
 */
export function parseCniArgs(text: string | undefined): CniArgs {
  const pairs = (text ?? '')
    .split(';')
    .filter((p) => p !== '')
    .map((pair) => {
      const kv = pair.split('=');
      if (kv.length !== 2) throw invalid(`ARGS: invalid pair ${JSON.stringify(pair)}`);
      return { pair, key: kv[0]!, value: kv[1]! };
    });
  const ignoreUnknown = pairs.some((p) => p.key === 'IgnoreUnknown' && parseBool(p.pair, p.value));
  const values = new Map<string, string>();
  for (const { pair, key, value } of pairs) {
    if (!KNOWN.has(key)) {
      if (ignoreUnknown) continue;
      throw invalid(`ARGS: unknown args ${JSON.stringify(pair)}`);
    }
    values.set(key, value);
  }
  let ip: string | undefined;
  const ipText = values.get('IP');
  if (ipText !== undefined && ipText !== '') {
    try {
      ip = formatIp(parseIp(ipText));
    } catch {
      throw invalid(
        `ARGS: error parsing value of pair ${JSON.stringify(`IP=${ipText}`)}: invalid IP address`,
      );
    }
  }
  const namespace = values.get('K8S_POD_NAMESPACE') ?? '';
  const pod = values.get('K8S_POD_NAME') ?? '';
  return {
    ...(namespace !== '' && pod !== '' && { k8s: { namespace, pod } }),
    ...(ip !== undefined && { ip }),
  };
}
