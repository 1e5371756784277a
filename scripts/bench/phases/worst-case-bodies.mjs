// Phase 7: ../worst-case-bodies.mjs in its own process (it runs the built app in-process, so the event-loop delay it
// measures is the API's). Its tables are printed as they come; its JSON result is kept.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError, PATHS } from '../context.mjs';
import { exitWithinTimeLeft } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';
import { onLines } from '../util.mjs';

export async function worstCaseBodies(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'worst-case bodies');
  ctx.log(report.worstCaseIntro());
  const out = join(ctx.tmp, 'worst-case-bodies.json');
  const args = ['--no-node-snapshot', PATHS.WORST_CASE_BODIES, '--repeat', String(opts.worstCaseRepeat), '--json', out];
  const child = spawn(process.execPath, args, { cwd: PATHS.ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  ctx.children.add(child);
  onLines(child.stdout, (line) => ctx.log(line));
  const stderr = [];
  onLines(child.stderr, (line) => stderr.push(line));
  const outcome = await exitWithinTimeLeft(ctx, child);
  ctx.children.delete(child);
  if (outcome.timeout) throw new BenchError(`worst-case bodies: out of time (--max-minutes ${opts.maxMinutes})`);
  if (outcome.code !== 0) throw new BenchError(`worst-case bodies exited with ${outcome.code ?? outcome.signal}:\n${stderr.join('\n')}`);
  ctx.results.worst_case_bodies = JSON.parse(readFileSync(out, 'utf8'));
}
