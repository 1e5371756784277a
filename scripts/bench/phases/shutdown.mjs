// Stops the service with SIGTERM after the last phase that needs it; an unclean stop (exit code other than 0, or no
// exit within 30 s) fails the run once the remaining phases have run.
import { serviceTail } from '../context.mjs';
import * as report from '../report.mjs';
import { stopService } from '../service.mjs';

export async function shutdown(ctx) {
  const outcome = await stopService(ctx, 30_000);
  ctx.results.shutdown = { exit_code: outcome.code, signal: outcome.signal, killed: outcome.killed, ms: outcome.ms };
  ctx.log(report.shutdown(ctx.results.shutdown));
  if (outcome.code !== 0 || outcome.killed) {
    ctx.failures.push(`the service did not shut down cleanly on SIGTERM (${JSON.stringify(ctx.results.shutdown)})\n${serviceTail(ctx)}`);
  }
}
