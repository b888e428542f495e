// The rendered manifests as objects, for the tests.
import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as rendered (only what the tests read is typed). */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec?: Record<string, unknown>;
  readonly data?: Record<string, string>;
  readonly rules?: unknown[];
}

export interface Container {
  readonly name: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  readonly envFrom?: { configMapRef?: { name: string } }[];
  readonly volumeMounts?: { name: string; mountPath: string }[];
  readonly securityContext?: Record<string, unknown>;
  readonly readinessProbe?: Record<string, unknown>;
  readonly livenessProbe?: Record<string, unknown>;
}

export interface PodSpec {
  readonly containers: Container[];
  readonly initContainers?: Container[];
  readonly volumes?: {
    name: string;
    hostPath?: { path: string };
    secret?: { secretName: string };
  }[];
  readonly securityContext?: Record<string, unknown>;
  readonly serviceAccountName?: string;
  readonly hostNetwork?: boolean;
}

/** The objects of a multi-document YAML; throws the first parse error of any document. */
export function parseObjects(yaml: string): KubeObject[] {
  return parseAllDocuments(yaml)
    .map((doc) => {
      const [error] = doc.errors;
      if (error) throw error;
      return doc.toJS() as unknown;
    })
    .filter((d): d is KubeObject => typeof d === 'object' && d !== null);
}

/** The one object of `kind` named `name`; throws if there is not exactly one. */
export function find(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  if (found.length !== 1) throw new Error(`${found.length} ${kind} named ${name}`);
  return found[0]!;
}

/** A workload's pod spec. */
export function podSpec(workload: KubeObject): PodSpec {
  return (workload.spec as { template: { spec: PodSpec } }).template.spec;
}

/** The ConfigMap an `envFrom` names, generated with a hash suffix. */
export function configMap(objects: readonly KubeObject[], name: string): KubeObject {
  return find(objects, 'ConfigMap', name);
}
