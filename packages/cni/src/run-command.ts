import { formatResult, printJson } from './cni-result.js';
import { cmdAdd } from './cmd-add.js';
import { cmdCheck } from './cmd-check.js';
import { cmdDel } from './cmd-del.js';
import { cmdGc } from './cmd-gc.js';
import { cmdStatus } from './cmd-status.js';
import type { CommandContext } from './command-context.js';
import { cmdAddK8s } from './k8s/k8s-add.js';
import { cmdCheckK8s } from './k8s/k8s-check.js';
import { cmdDelK8s } from './k8s/k8s-del.js';
import { versionInfo } from './spec-versions.js';
import type { SpecVersion } from './spec-versions.js';
import { handleIdFor } from './workload-identity.js';

/**
 * Runs the request's command (a Kubernetes pod's ADD, DEL and CHECK through k8s/ when `ctx.kube`
 * is set) and returns what goes to stdout: ADD's result in `version` (and an info line naming its
 * handle and addresses), VERSION's answer, nothing for the others. A command's error propagates.
 */
export async function runCommand(ctx: CommandContext, version: SpecVersion): Promise<string> {
  switch (ctx.request.command) {
    case 'ADD': {
      const result = ctx.kube ? await cmdAddK8s(ctx, ctx.kube) : await cmdAdd(ctx);
      const handle = handleIdFor(ctx.conf.name, ctx.request.containerId, ctx.request.ifname);
      ctx.log.info(`ADD ${handle}: ${result.ips.join(', ')}`);
      return printJson(formatResult(result, version));
    }
    case 'DEL':
      await (ctx.kube ? cmdDelK8s(ctx, ctx.kube) : cmdDel(ctx));
      return '';
    case 'CHECK':
      await (ctx.kube ? cmdCheckK8s(ctx, ctx.kube) : cmdCheck(ctx));
      return '';
    case 'GC':
      await cmdGc(ctx);
      return '';
    case 'STATUS':
      await cmdStatus(ctx);
      return '';
    case 'VERSION':
      return `${JSON.stringify(versionInfo())}\n`;
  }
}
