import { decodeAuthenticateResponse } from './gateway-json.js';
import type { GatewayEndpoints } from './gateway-endpoints.js';

/** The etcd auth token of the gateway transport, fetched once and shared by every request. */
export interface GatewayAuth {
  /** The token, authenticating first when there is none (a failed attempt is not remembered). */
  token(): Promise<string>;
  /** Drops `stale` (etcd said it is invalid: it expired), unless a newer token replaced it. */
  forget(stale: Promise<string>): void;
}

/** Creates the token holder that authenticates as `username` through `endpoints`. */
export function createGatewayAuth(
  endpoints: GatewayEndpoints,
  credentials: { readonly username: string; readonly password: string | undefined },
): GatewayAuth {
  let token: Promise<string> | undefined;
  const forget = (stale: Promise<string>): void => {
    if (token === stale) token = undefined;
  };
  return {
    token() {
      if (token) return token;
      const pending = endpoints
        .send({
          path: '/v3/auth/authenticate',
          body: { name: credentials.username, password: credentials.password ?? '' },
          token: undefined,
        })
        .then(decodeAuthenticateResponse);
      token = pending;
      // A failed authentication is not remembered: the next call tries again.
      pending.catch(() => forget(pending));
      return pending;
    },
    forget,
  };
}
