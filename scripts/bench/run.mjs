// The benchmark harness (`npm run bench`; README.md here explains each phase, `--help` every option). It parses the
// options, builds the context the phases share (context.mjs), runs the phases --phase selects (one module each in
// phases/, in this order), and prints the summaries against the targets (report.mjs).
import { existsSync, writeFileSync } from 'node:fs';
import { BenchError, createContext, loadAverage, machineInfo, PATHS } from './context.mjs';
import { parseOptions } from './options.mjs';
import { audit } from './phases/audit.mjs';
import { baseline } from './phases/baseline.mjs';
import { create } from './phases/create.mjs';
import { frameworkFloor } from './phases/framework-floor.mjs';
import { latency1conn } from './phases/latency-1conn.mjs';
import { lag } from './phases/lag.mjs';
import { loadToN } from './phases/load-to-n.mjs';
import { meiliCatchUp } from './phases/meili-catch-up.mjs';
import { react } from './phases/react.mjs';
import { memory } from './phases/memory.mjs';
import { proxy } from './phases/proxy.mjs';
import { rebuild } from './phases/rebuild.mjs';
import { search } from './phases/search.mjs';
import { serviceStart } from './phases/service-start.mjs';
import { shutdown } from './phases/shutdown.mjs';
import { startupAtN } from './phases/startup-at-n.mjs';
import { webhooks } from './phases/webhooks.mjs';
import { worstCaseBodies } from './phases/worst-case-bodies.mjs';
import * as report from './report.mjs';
import { startMemorySampling } from './service.mjs';

/** The phases each --phase runs, in order; `summary` says whether the targets can be judged afterwards. */
const PLANS = {
  all: { phases: [baseline, frameworkFloor, serviceStart, create, loadToN, startupAtN, latency1conn, lag, search, rebuild, meiliCatchUp, react, memory, shutdown, worstCaseBodies], summary: true },
  'worst-case-bodies': { phases: [worstCaseBodies], summary: false },
  react: { phases: [serviceStart, react, shutdown], summary: false },
  audit: { phases: [serviceStart, audit, shutdown], summary: false },
  'framework-floor': { phases: [baseline, frameworkFloor], summary: false },
  proxy: { phases: [baseline, frameworkFloor, proxy, shutdown], summary: false },
  webhooks: { phases: [webhooks, shutdown], summary: false },
};

const argv = process.argv.slice(2);
const opts = parseOptions(argv);
const ctx = createContext(opts);
startMemorySampling(ctx);
process.on('SIGINT', () => ctx.fail('interrupted (SIGINT)'));
process.on('SIGTERM', () => ctx.fail('terminated (SIGTERM)'));
process.on('unhandledRejection', (error) => ctx.fail(`unhandled rejection: ${error?.stack ?? error}`));

async function main() {
  if (!existsSync(PATHS.API_MAIN) || !existsSync(PATHS.CLI_MAIN)) {
    throw new BenchError(`${PATHS.API_MAIN} or ${PATHS.CLI_MAIN} is missing: run npm run build first (npm run bench does)`);
  }
  const { results } = ctx;
  results.machine = machineInfo();
  ctx.log(report.machine(results.machine, opts, ctx.tmp, argv));
  const plan = PLANS[opts.phase];
  for (const phase of plan.phases) await phase(ctx);
  if (results.baseline || results.framework_floor) {
    const ratios = report.throughputRatios(results);
    results.throughput_ratios = ratios.json;
    ctx.log(ratios.text);
  }
  if (plan.summary) {
    results.machine.load_average_at_end = loadAverage();
    const { text, targets } = report.summary(results, opts, ctx.created);
    results.targets = targets;
    ctx.log(text);
    const floorTargets = report.summaryFloorTargets(results, opts);
    results.targets_floor = floorTargets.targets;
    ctx.log(floorTargets.text);
  }
  if (opts.json) {
    writeFileSync(opts.json, JSON.stringify(ctx.failures.length ? { ...results, failed: ctx.failures.join('\n') } : results, null, 2) + '\n');
    ctx.log(`Wrote ${opts.json}.`);
  }
  if (ctx.failures.length > 0) process.stderr.write(`\nbench FAILED: ${ctx.failures.join('\n')}\n`);
  ctx.cleanup();
  process.exit(ctx.failures.length > 0 ? 1 : 0);
}

main().catch((error) => ctx.fail(error instanceof BenchError ? error.message : error?.stack ?? String(error)));
