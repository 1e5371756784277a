// Framework floor: a minimal NestJS application on @nestjs/platform-express (../framework-floor-server.mjs)
// started and loaded exactly like the raw node:http baseline, so every throughput can also be given as a share of
// what the framework itself allows on this machine.
import { checkStatuses } from '../api.mjs';
import { PATHS } from '../context.mjs';
import { stopChild } from '../processes.mjs';
import * as report from '../report.mjs';
import { BASELINE_BODY, loadLikeBaseline, startServerChild } from './baseline.mjs';

export async function frameworkFloor(ctx) {
  ctx.log(report.frameworkFloorIntro());
  const { child, port, line } = await startServerChild(ctx, PATHS.FRAMEWORK_FLOOR, 'framework floor listening', 'the framework floor server', 'framework-floor.log');
  const r = await loadLikeBaseline(ctx, port, 'framework floor');
  const stopped = await stopChild(ctx, child);
  checkStatuses(ctx, 'framework floor', r);
  if (stopped.killed || stopped.code !== 0) ctx.warn(`framework floor: the server did not exit 0 on SIGTERM (${JSON.stringify(stopped)})`);
  ctx.results.framework_floor = {
    rps: r.rps,
    latency: r.latency,
    connections: r.connections,
    duration_s: r.elapsed_s,
    non2xx: r.non2xx,
    errors: r.errors,
    versions: line.versions,
    ratio_to_baseline: ctx.results.baseline ? r.rps / ctx.results.baseline.rps : null,
    request: `POST / with a ${BASELINE_BODY.length}-byte JSON body, answered 200 with the baseline's JSON body by one NestJS route (Nest defaults: JSON body parser, ETag, X-Powered-By)`,
  };
  ctx.log(report.frameworkFloor(ctx.results.framework_floor, ctx.opts));
}
