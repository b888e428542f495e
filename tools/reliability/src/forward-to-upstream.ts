import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';

/** Where {@link forwardToUpstream} sends a request. */
export interface Upstream {
  readonly url: URL;
  readonly caPem: string;
  /** The keep-alive agent of ordinary requests (a watch gets a connection of its own). */
  readonly agent: https.Agent;
}

/** Whether a request is a watch (`?watch=1` or `?watch=true`). */
function isWatch(req: IncomingMessage): boolean {
  return /[?&]watch=(1|true)/.test(req.url ?? '');
}

/**
 * Forwards `req` to the upstream (https) and pipes its answer back, headers flushed at once (a
 * watch's events may be long in coming). A watch's response is passed to `onWatch` once its
 * headers are sent; closing it ends the upstream one. If the upstream is unreachable (restarting)
 * the client's connection is dropped, as it would be.
 */
export function forwardToUpstream(
  req: IncomingMessage,
  res: ServerResponse,
  o: { readonly upstream: Upstream; readonly onWatch: (res: ServerResponse) => void },
): void {
  const { url, caPem, agent } = o.upstream;
  const watch = isWatch(req);
  const upstreamReq = https.request(
    {
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: url.host },
      agent: watch ? new https.Agent({ ca: caPem }) : agent,
    },
    (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      res.flushHeaders();
      if (watch) {
        res.once('close', () => upstreamRes.destroy());
        o.onWatch(res);
      }
      upstreamRes.pipe(res);
      upstreamRes.once('error', () => res.destroy());
    },
  );
  upstreamReq.once('error', () => res.destroy());
  req.pipe(upstreamReq);
}
