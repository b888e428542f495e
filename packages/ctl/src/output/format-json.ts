import { stringifyJson } from '@netledger/ipam-core/adapter';

/**
 * netledgerctl's JSON: as Go's `json.MarshalIndent(v, "", "  ")` writes it (ipam-core's
 * `stringifyJson`, Go's escapes, `bigint` as a bare integer so uint64 sequence numbers stay
 * exact, `undefined` members left out). No trailing newline.
 */
export function formatJson(value: unknown): string {
  return stringifyJson(value, { indent: '  ' });
}
