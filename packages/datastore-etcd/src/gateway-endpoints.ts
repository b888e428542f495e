import { GatewayUnreachableError } from './gateway-error.js';
import type { GatewayHttp } from './gateway-http.js';
import { classifyEtcdError } from './map-etcd-error.js';

/** One request of the gateway transport, to whichever endpoint is current. */
interface GatewayCall {
  /** e.g. `/v3/kv/range`. */
  readonly path: string;
  readonly body: unknown;
  /** etcd auth token, when authenticated. */
  readonly token: string | undefined;
}

/** The endpoints of the gateway transport and which one requests go to now. */
export interface GatewayEndpoints {
  /** The index of the endpoint the next request goes to. */
  current(): number;
  /** The URL of the endpoint at `index`. */
  url(index: number): string;
  /** The next call goes to the endpoint after `index`, unless another call moved on already. */
  moveOn(index: number): void;
  /**
   * POSTs `call` to the current endpoint. A connection that could not be made (nothing was sent)
   * moves on to the next endpoint at once, up to one round; a retryable failure moves the next
   * call on and rejects; other failures reject as `client.post` does.
   */
  send(call: GatewayCall): Promise<unknown>;
}

/** Creates the endpoint rotation over `client` (requests go to one endpoint at a time). */
export function createGatewayEndpoints(
  client: GatewayHttp,
  endpoints: readonly string[],
): GatewayEndpoints {
  let current = 0;
  const moveOn = (index: number): void => {
    if (current === index) current = (index + 1) % endpoints.length;
  };
  return {
    current: () => current,
    url: (index) => endpoints[index]!,
    moveOn,
    async send({ path, body, token }) {
      for (let tried = 1; ; tried++) {
        const index = current;
        try {
          return await client.post({ endpoint: endpoints[index]!, path, body, token });
        } catch (e) {
          if (classifyEtcdError(e) === 'retry') moveOn(index);
          const unsent = e instanceof GatewayUnreachableError && !e.requestSent;
          if (!unsent || tried >= endpoints.length) throw e;
        }
      }
    },
  };
}
