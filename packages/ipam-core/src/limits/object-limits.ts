// Kubernetes' limits on an object, so that every store refuses what a Kubernetes API server would
// refuse, whichever store holds the data. Behaviour carried over from k8s.io/apimachinery
// (pkg/api/validation/objectmeta.go: ValidateAnnotations, TotalAnnotationSizeLimitB;
// pkg/util/validation and pkg/api/validate/content: IsDNS1123Subdomain, IsDNS1123Label,
// IsQualifiedName/IsLabelKey, IsValidLabelValue) and from Calico's validator
// (libcalico-go/lib/validator/v3: validateObjectMeta), plus etcd's default request limit
// (--max-request-bytes, 1.5 MiB), which bounds every object Kubernetes stores. Lengths are
// counted in UTF-8 bytes, as Go's len counts them. Pure: no I/O.
import { IpamError } from '../errors.js';
import type { DatastoreKey } from '../model/keys.js';
import { describeKey } from '../model/keys.js';

/** Kubernetes' TotalAnnotationSizeLimitB: every annotation key and value together, in bytes. */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;
/** etcd's default request limit, which Kubernetes inherits: an object's encoded size, in bytes. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;
/** A DNS-1123 subdomain (a resource name, a label key's prefix), in bytes. */
export const MAX_DNS1123_SUBDOMAIN_BYTES = 253;
/** A DNS-1123 label (a namespace name), in bytes. */
const MAX_DNS1123_LABEL_BYTES = 63;
/** The name part of a label or annotation key, in bytes. */
const MAX_LABEL_NAME_BYTES = 63;
/** A label value, in bytes. */
const MAX_LABEL_VALUE_BYTES = 63;

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** A DNS-1123 subdomain's characters and shape (length aside). */
export const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL}$`);
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const SUBDOMAIN_SHAPE =
  "must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character";
const LABEL_NAME_SHAPE =
  "consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character";

/** The UTF-8 length of `text` in bytes (what Go's `len` gives for the same string). */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else {
      // 3 bytes, a lone surrogate included (written as U+FFFD); a surrogate pair, 2 units, is 4.
      bytes += 2;
      const next = text.charCodeAt(i + 1);
      if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}

/** Why `value` is not a DNS-1123 subdomain (at most 253 bytes), or `undefined` when it is one. */
export function dns1123SubdomainProblem(value: string): string | undefined {
  const n = utf8ByteLength(value);
  if (n > MAX_DNS1123_SUBDOMAIN_BYTES) {
    return `must be no more than ${MAX_DNS1123_SUBDOMAIN_BYTES} bytes (is ${n})`;
  }
  return DNS1123_SUBDOMAIN.test(value) ? undefined : SUBDOMAIN_SHAPE;
}

/** Why `value` is not a DNS-1123 label (at most 63 bytes, no dots), or `undefined`. */
export function dns1123LabelProblem(value: string): string | undefined {
  const n = utf8ByteLength(value);
  if (n > MAX_DNS1123_LABEL_BYTES) {
    return `must be no more than ${MAX_DNS1123_LABEL_BYTES} bytes (is ${n})`;
  }
  if (DNS1123_LABEL_RE.test(value)) return undefined;
  return DNS1123_SUBDOMAIN.test(value)
    ? 'must not contain dots'
    : "must consist of lower case alphanumeric characters or '-', and start and end with an alphanumeric character";
}

/**
 * Why `key` is not a label key, or `undefined`: an optional DNS-1123 subdomain prefix and `/`,
 * then a name of at most 63 bytes of `[A-Za-z0-9._-]` starting and ending alphanumeric.
 */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) {
    return "must be a name with an optional DNS-1123 subdomain prefix and one '/' (e.g. 'example.com/MyName')";
  }
  const [prefix, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  if (prefix !== undefined) {
    if (prefix === '') return 'prefix part must not be empty';
    const problem = dns1123SubdomainProblem(prefix);
    if (problem !== undefined) return `prefix part ${problem}`;
  }
  if (name === '') return 'name part must not be empty';
  const n = utf8ByteLength(name);
  if (n > MAX_LABEL_NAME_BYTES) {
    return `name part must be no more than ${MAX_LABEL_NAME_BYTES} bytes (is ${n})`;
  }
  return LABEL_NAME.test(name) ? undefined : `name part must ${LABEL_NAME_SHAPE}`;
}

/** Why `value` is not a label value (empty, or at most 63 bytes shaped as a key's name), or `undefined`. */
export function labelValueProblem(value: string): string | undefined {
  const n = utf8ByteLength(value);
  if (n > MAX_LABEL_VALUE_BYTES) {
    return `must be no more than ${MAX_LABEL_VALUE_BYTES} bytes (is ${n})`;
  }
  return value === '' || LABEL_NAME.test(value)
    ? undefined
    : `must be empty, or ${LABEL_NAME_SHAPE}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems of `metadata.labels`: each key a label key, each value a label value. */
function labelsProblems(labels: unknown): string[] {
  if (labels === undefined || labels === null) return [];
  if (!isRecord(labels)) return ['metadata.labels must be a map of strings'];
  const problems: string[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const keyProblem = labelKeyProblem(k);
    if (keyProblem !== undefined) problems.push(`metadata.labels key ${quote(k)} ${keyProblem}`);
    if (typeof v !== 'string') problems.push(`metadata.labels[${quote(k)}] must be a string`);
    else {
      const valueProblem = labelValueProblem(v);
      if (valueProblem !== undefined) {
        problems.push(`metadata.labels[${quote(k)}] value ${quote(v)} ${valueProblem}`);
      }
    }
  }
  return problems;
}

/**
 * Problems of `metadata.annotations`: each key a label key (case does not matter), and all keys
 * and values together at most {@link MAX_ANNOTATIONS_BYTES}.
 */
export function annotationsProblems(annotations: unknown): string[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isRecord(annotations)) return ['metadata.annotations must be a map of strings'];
  const problems: string[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    const keyProblem = labelKeyProblem(k.toLowerCase());
    if (keyProblem !== undefined) {
      problems.push(`metadata.annotations key ${quote(k)} ${keyProblem}`);
    }
    if (typeof v !== 'string') {
      problems.push(`metadata.annotations[${quote(k)}] must be a string`);
      continue;
    }
    total += utf8ByteLength(k) + utf8ByteLength(v);
  }
  if (total > MAX_ANNOTATIONS_BYTES) {
    problems.push(
      `metadata.annotations total ${total} bytes (keys and values), over Kubernetes' limit of ${MAX_ANNOTATIONS_BYTES} bytes (256 KiB) by ${total - MAX_ANNOTATIONS_BYTES}`,
    );
  }
  return problems;
}

/** A value shown in a message: quoted, and cut short when long (a 50 MB value is not echoed). */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 40)}...${text.slice(-20)}` : text);
}

/**
 * Checks a resource's metadata as Kubernetes (and Calico's validator) would before storing it:
 * the name a DNS-1123 subdomain of at most 253 bytes, every label key and value per Kubernetes'
 * label rules, annotation keys as label keys and all annotations together at most 256 KiB.
 * Throws `IpamError('InvalidArgument')` naming the kind, the object and every limit broken;
 * returns the name.
 */
export function validateObjectMeta(kind: string, metadata: unknown): string {
  const meta = isRecord(metadata) ? metadata : {};
  const name = meta.name;
  const shown = typeof name === 'string' ? quote(name) : JSON.stringify(name ?? '');
  const problems: string[] = [];
  if (typeof name !== 'string' || name === '') problems.push('metadata.name must be specified');
  else {
    const nameProblem = dns1123SubdomainProblem(name);
    if (nameProblem !== undefined) problems.push(`metadata.name ${nameProblem}`);
  }
  problems.push(...labelsProblems(meta.labels), ...annotationsProblems(meta.annotations));
  if (problems.length > 0) {
    throw new IpamError('InvalidArgument', `invalid ${kind} ${shown}: ${problems.join('; ')}`, {
      ...(typeof name === 'string' && { identifier: name }),
    });
  }
  return name as string;
}

/**
 * Refuses (`IpamError('InvalidArgument')`, naming the key and the limit) an object whose encoded
 * form `text` is over {@link MAX_OBJECT_BYTES} in UTF-8. Constant time for text far from the
 * limit either way; it counts bytes only when the character count alone cannot tell.
 */
export function assertObjectSize(key: DatastoreKey, text: string): void {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, 2 units, is 4).
  if (text.length * 3 <= MAX_OBJECT_BYTES) return;
  // Past the limit in characters, it is past it in bytes: no need to count them all.
  const atLeast = text.length > MAX_OBJECT_BYTES;
  const bytes = atLeast ? text.length : utf8ByteLength(text);
  if (bytes <= MAX_OBJECT_BYTES) return;
  const what = describeKey(key);
  throw new IpamError(
    'InvalidArgument',
    `refusing to write ${what}: encoded it is ${atLeast ? 'at least ' : ''}${bytes} bytes, over the limit of ${MAX_OBJECT_BYTES} bytes (1.5 MiB, etcd's default request size, which Kubernetes inherits)`,
    { identifier: what },
  );
}
