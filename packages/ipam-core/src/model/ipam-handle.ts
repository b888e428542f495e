import type { StoredJson } from './stored-json.js';

/** A handle: how many addresses one owner holds in each block (Calico's `model.IPAMHandle`). */
export interface IpamHandle {
  /** The handle ID as given (the key may be lower-cased by some stores). */
  readonly handleId: string;
  /** Block CIDR -> number of addresses this handle holds there. */
  readonly block: Readonly<Record<string, number>>;
  readonly deleted: boolean;
  /** Stored JSON this model does not carry (a nil `block` map, unknown keys); set by the codec. */
  readonly storedJson?: StoredJson;
}
