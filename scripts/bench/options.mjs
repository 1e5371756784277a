// The bench's command line: --help text and parsing into one options object (bad options exit 2 with the help).
import { parseArgs } from 'node:util';

/** What --phase selects: every phase, or one of the phases that also run alone (see --help). */
export const PHASE_CHOICES = ['all', 'worst-case-bodies', 'react', 'audit', 'framework-floor', 'proxy', 'webhooks'];

export const HELP = `Usage: npm run bench -- [options]        (or: node scripts/bench/run.mjs [options] after npm run build)

Starts the built API (node dist/apps/api/src/main.js, with the node flags of package.json's start script) on a fresh
temporary embedded data dir, measures it over HTTP with autocannon in a separate process, and compares every
throughput with a minimal node:http server measured in the same run under the same load settings.

Options:
  --tokens N            tokens to load before the search phase (default 100000; the targets are set at 1000000)
  --duration S          seconds per timed phase: create, lag, each search mix (default 10; each query kind gets a share)
  --connections C       concurrent connections for autocannon (default 32)
  --json FILE           also write every figure and the machine info as JSON to FILE
  --keep-data           keep the temporary data dir (and the service log) instead of deleting it
  --seed N              seed of the token mix (default 1)
  --warmup S            unreported warm-up seconds before the baseline, create and search runs (default 1)
  --lag-rate R          total creates/s during the projection-lag phase (default 1000)
  --lag-sample-every K  the harness itself issues every K-th create of the lag phase and times it (default 20)
  --lag-timeout S       a timed create of the lag phase that search has not returned after S seconds fails the
                        run (default 10)
  --max-minutes M       abort (exit 1) when the whole run takes longer (default 120)
  --service-arg ARG     extra node flag for the service, repeatable (e.g. --service-arg=--cpu-prof
                        --service-arg=--cpu-prof-dir=/tmp/prof)
  --service-env K=V     extra environment variable for the service, repeatable (e.g. VAULT_LOG_LEVEL=warn)
  --phase NAME          all (default), worst-case-bodies alone (no service, baseline or tokens needed), or react
                        alone (a fresh service, the react phase, shutdown; no baseline or tokens)
  --phase audit         access-record overhead alone: reveal reads (GET /tokens/{id}, --connections, --duration)
                        with VAULT_AUDIT_ACCESS_RECORDS on and off: 4 runs each in ABBA order on one service restarted
                        on the same data dir, then 3 paired runs of two services (on, off) on copies of that data
                        loaded at the same time; PASS when the paired median overhead is at most 10%
  --phase framework-floor  the raw node:http baseline and the framework floor alone (no service, no tokens)
  --phase proxy         (not part of all) the baseline, the framework floor, then a fresh service whose
                        VAULT_PROXY_ALLOWED_HOSTS names a local node:http destination in its own process
                        (scripts/bench/proxy-destination-server.mjs): the destination loaded directly, through
                        POST /proxy, and through POST /proxy with one {{ token }} detokenized, at 1 connection and
                        at --connections; PASS when the pass-through overhead p50 at 1 connection is at most 2 ms
                        and its throughput at least 50% of the floor
  --phase webhooks      (not part of all) a fresh service whose VAULT_WEBHOOK_ALLOWED_HOSTS names a local node:http
                        receiver in its own process (scripts/bench/webhook-receiver-server.mjs), 3 webhooks on
                        token.created, --webhook-rate creates/s for --duration seconds (open loop); per webhook the
                        deliveries vs the creates answered 201 and the delivery latency p50/p99/max; PASS when every
                        create reaches every webhook within 10 s of its created_at
  --webhook-rate R      creates/s of the webhooks phase (default 200)
  --latency-requests N  timed requests per query kind in the 1-connection latency phase (default 200; a kind stops
                        after 30 s once it has 20)
  --worst-case-repeat N times each worst-case body is sent after its warm-up (default 5)
  --meili-seconds S     with MEILI_URL (and MEILI_MASTER_KEY) set: after the rebuild, time the projector filling an
                        empty Meilisearch read model from this log for at most S seconds (default 60)
  --help                show this help

Phases: baseline, 1 create, 2 loading to N tokens, 3 projection lag (the service restarted with
VAULT_WRITE_WAIT_MS=0, so writes answer before the read model applied them and the lag is the real one), 4 search,
5 rebuild (CLI, API running), 6 memory (peak RSS of the service), 7 worst-case bodies (the built app in-process,
scripts/bench/worst-case-bodies.mjs: the event-loop delay each endpoint's worst accepted and refused bodies cause),
then a summary against the targets with a PASS/MISS column.
Also in every full run: framework-floor right after the baseline (a minimal NestJS app on
@nestjs/platform-express, scripts/bench/framework-floor-server.mjs, one POST route with a constant JSON body, loaded
exactly like the baseline); after loading to N, startup-at-n (the service restarted on the same data dir, timed until
GET /health/ready answers 200) and latency-1conn (each query kind of the search mix, one request at a time, every
query text used once so that no result or total cache answers it; p50/p99 per kind, total_items checked for
exactness, --latency-requests a kind). Every throughput is then printed as a share of both the baseline and the
floor, and a second summary gives the targets set against the floor with PASS/MISS.
Exit status: 0 when every phase completed (targets missed or not), 1 when something failed (the service died,
a response had an unexpected status, a phase timed out, a created token never became searchable), 2 on bad options.`;

export function parseOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        tokens: { type: 'string', default: '100000' },
        duration: { type: 'string', default: '10' },
        connections: { type: 'string', default: '32' },
        json: { type: 'string' },
        'keep-data': { type: 'boolean', default: false },
        seed: { type: 'string', default: '1' },
        warmup: { type: 'string', default: '1' },
        'lag-rate': { type: 'string', default: '1000' },
        'lag-sample-every': { type: 'string', default: '20' },
        'lag-timeout': { type: 'string', default: '10' },
        'max-minutes': { type: 'string', default: '120' },
        'service-arg': { type: 'string', multiple: true, default: [] },
        'service-env': { type: 'string', multiple: true, default: [] },
        phase: { type: 'string', default: 'all' },
        'worst-case-repeat': { type: 'string', default: '5' },
        'meili-seconds': { type: 'string', default: '60' },
        'latency-requests': { type: 'string', default: '200' },
        'webhook-rate': { type: 'string', default: '200' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    usage(error.message);
  }
  if (parsed.help) {
    process.stdout.write(HELP + '\n');
    process.exit(0);
  }
  const number = (name, { min, integer = false }) => {
    const raw = parsed[name].replace(/_/g, '');
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      usage(`--${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}, not "${parsed[name]}".`);
    }
    return n;
  };
  const serviceEnv = {};
  for (const pair of parsed['service-env']) {
    const eq = pair.indexOf('=');
    if (eq <= 0) usage(`--service-env needs KEY=VALUE, not "${pair}".`);
    serviceEnv[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return {
    tokens: number('tokens', { min: 1, integer: true }),
    duration: number('duration', { min: 1 }),
    connections: number('connections', { min: 1, integer: true }),
    json: parsed.json ?? null,
    keepData: parsed['keep-data'],
    seed: number('seed', { min: 0, integer: true }),
    warmup: number('warmup', { min: 0 }),
    lagRate: number('lag-rate', { min: 10 }),
    lagSampleEvery: number('lag-sample-every', { min: 1, integer: true }),
    lagTimeout: number('lag-timeout', { min: 1 }),
    maxMinutes: number('max-minutes', { min: 1 }),
    serviceArgs: parsed['service-arg'],
    serviceEnv,
    phase: PHASE_CHOICES.includes(parsed.phase) ? parsed.phase : usage(`--phase must be one of ${PHASE_CHOICES.join(', ')}, not "${parsed.phase}".`),
    worstCaseRepeat: number('worst-case-repeat', { min: 1, integer: true }),
    meiliSeconds: number('meili-seconds', { min: 1 }),
    latencyRequests: number('latency-requests', { min: 1, integer: true }),
    webhookRate: number('webhook-rate', { min: 1 }),
  };
}

function usage(message) {
  process.stderr.write(`bench: ${message}\n\n${HELP}\n`);
  process.exit(2);
}
