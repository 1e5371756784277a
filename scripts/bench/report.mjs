// Everything the bench prints: one function per section, from the figures the phases put in ctx.results. Each returns
// the section's lines joined with '\n' (a trailing '' is the blank line after it), for ctx.log.
import { int, mb, ms, pct, secs, table } from './util.mjs';

const lines = (...parts) => parts.join('\n');
const rateCell = (rps) => `${int(rps)}/s`;
/** A throughput as a share of the baseline's req/s (null before the baseline ran). */
const ratioTo = (baseline) => (rps) => (baseline ? rps / baseline.rps : null);
const env = (overrides) => Object.entries(overrides).map(([k, v]) => `${k}=${v}`).join(' ');

export function machine(m, opts, tmp, argv) {
  return lines(
    `# Vault benchmark, ${m.date}`,
    '',
    table(
      ['machine', ''],
      [
        ['cores', `${m.cores} (available parallelism ${m.available_parallelism})`],
        ['CPU', m.cpu_model],
        ['memory', mb(m.total_memory_bytes)],
        ['Node.js', m.node],
        ['OS', m.platform],
        ['load average at start', m.load_average.join(' ')],
        ['autocannon', `${m.autocannon} (separate process, pipelining 1)`],
        ['command', `node scripts/bench/run.mjs ${argv.join(' ')}`.trim()],
      ],
    ),
    '',
    `Settings: --tokens ${opts.tokens} --duration ${opts.duration} --connections ${opts.connections} --seed ${opts.seed}; all traffic to 127.0.0.1; temp dir ${tmp}`,
    '',
  );
}

export const baselineIntro = () => lines('## Baseline: minimal node:http server (scripts/bench/baseline-server.mjs)', '');

export function baseline(b, opts) {
  return lines(table(['server', 'connections', 'req/s', 'p50', 'p99', 'non-2xx'], [['node:http, POST small JSON', opts.connections, rateCell(b.rps), ms(b.latency.p50), ms(b.latency.p99), int(b.non2xx)]]), '');
}

export const serviceIntro = () => lines('## Service', '');

export function serviceStarted({ opts, started, dataDir, serviceLog, rateLimit, overrides = {} }) {
  return lines(
    `- command: node ${started.flags.map((a) => a + ' ').join('')}dist/apps/api/src/main.js, the flags of package.json's start script (pid ${started.pid}), started in ${started.startup_ms} ms, listening on 127.0.0.1:${started.port}`,
    `- VAULT_DATA_DIR=${dataDir} (fresh, embedded event store and read model; deleted at the end unless --keep-data)`,
    `- VAULT_RATE_LIMIT_PER_SECOND=${rateLimit} (default 2000 per key: raised so that the per-key limiter never throttles the benchmark; every request still passes through it)`,
    `- VAULT_BOOTSTRAP_KEY=<random, 64 chars>; other settings at their defaults${Object.keys({ ...opts.serviceEnv, ...overrides }).length ? `, plus ${env({ ...opts.serviceEnv, ...overrides })}` : ''}`,
    `- service output (JSON logs): ${serviceLog}`,
  );
}

export const applicationCreated = () => lines(`- application "bench" (private; token:create, token:read, token:search; no rules, so data is masked in responses)`, '');

/** One line for a restart of the service on the same data dir (the lag phase runs on its own process). */
export function serviceRestarted({ stopped, started, ready_ms }, overrides) {
  const settings = Object.keys(overrides).length ? `with ${env(overrides)}` : 'with the settings of the other phases';
  return lines(`Service restarted ${settings}: the previous process exited ${stopped.code} on SIGTERM after ${stopped.ms} ms; pid ${started.pid} listening after ${started.startup_ms} ms, read model caught up (lag 0) ${ready_ms} ms later.`, '');
}

export function createIntro(opts) {
  return lines(
    `## Phase 1: create (POST /tokens, ${opts.connections} connections, ${opts.duration} s)`,
    '',
    'Mix: 40% card_number (Luhn-valid), 25% social_security_number, 15% employer_id_number, 20% token (JSON, search_indexes {{ data.email }} and {{ data.customer_ref }}); half in 1–2 of /pci/high/, /pii/high/, /general/high/, /customers/eu/, /customers/us/, half in the type default; 0–3 metadata pairs.',
    '',
  );
}

export function create(c, baselineResult) {
  const ratio = ratioTo(baselineResult);
  return lines(
    table(
      ['figure', 'value'],
      [
        ['tokens/s', rateCell(c.tokens_per_s)],
        ['vs baseline', pct(ratio(c.tokens_per_s))],
        ['p50', ms(c.latency.p50)],
        ['p95', ms(c.latency.p95)],
        ['p99', ms(c.latency.p99)],
        ['max', ms(c.latency.max)],
        ['tokens created', int(c.created)],
        ['non-2xx', int(c.non2xx)],
        ['errors / timeouts', `${c.errors} / ${c.timeouts}`],
      ],
    ),
    '',
  );
}

export const loadIntro = (opts) => lines(`## Phase 2: loading to ${int(opts.tokens)} tokens (POST /tokens, ${opts.connections} connections, same mix)`, '');
export const loadNothing = (created) => `The create phase already made ${int(created)} tokens; nothing to load.`;

export function loadProgress({ done, target, rate, elapsed, eta }) {
  return `load: ${int(done)}/${int(target)} tokens (${Math.floor((done / target) * 100)}%), ${int(rate)} tokens/s, elapsed ${secs(elapsed)}, ETA ${Number.isFinite(eta) ? secs(eta) : '?'}`;
}

export function load(l, baselineResult) {
  const ratio = ratioTo(baselineResult);
  return lines(
    '',
    table(
      ['figure', 'value'],
      [
        ['tokens in the vault (search total, query null)', int(l.visible_in_search)],
        ['creates answered 2xx so far', int(l.acked)],
        ['loaded in this phase', int(l.loaded_in_phase)],
        ['loading time', secs(l.seconds)],
        ['tokens/s (wall clock, incl. worker restarts)', l.tokens_per_s === null ? null : rateCell(l.tokens_per_s)],
        ['vs baseline', pct(ratio(l.tokens_per_s ?? 0))],
        ['service RSS at N tokens', mb(l.rss_bytes_at_n)],
        ['sampled tokens kept for search', int(l.samples)],
      ],
    ),
    '',
  );
}

export function lagIntro(plan, opts) {
  return lines(
    `## Phase 3: projection lag (about ${int(opts.lagRate)} creates/s for ${opts.duration} s)`,
    '',
    `The service runs this phase with VAULT_WRITE_WAIT_MS=0: a create answers as soon as its event is stored, without waiting for the read model, so the time until search returns the token is the projection's real lag. ` +
      `autocannon sends ${int(plan.cannonRate)} creates/s (overallRate, ${Math.min(opts.connections, plan.cannonRate)} connections); the harness sends every ${plan.every}th create itself (${plan.harnessRate}/s), and from its 2xx polls POST /tokens/search {"query":"id:<id>"} every ${plan.pollMs} ms until the token is returned, for at most ${opts.lagTimeout} s (a token not returned by then fails the run).`,
    '',
  );
}

export function lag(g, baselineResult, opts) {
  const ratio = ratioTo(baselineResult);
  const share = (n, of) => (of ? `${pct(n / of)} (${int(n)} of ${int(of)})` : null);
  return lines(
    '',
    table(
      ['figure', 'value'],
      [
        ['creates/s achieved (target ≈ ' + int(opts.lagRate) + ')', rateCell(g.achieved_creates_per_s)],
        ['vs baseline', pct(ratio(g.achieved_creates_per_s))],
        ['timed samples', int(g.samples)],
        [`never returned by search within ${g.timeout_s} s`, int(g.not_searchable_within_timeout)],
        ['answered before the read model had it (X-Projection-Pending)', share(g.projection_pending, g.harness_creates)],
        ['lag p50 (2xx → returned by search)', ms(g.lag_ms.p50)],
        ['lag p95', ms(g.lag_ms.p95)],
        ['lag p99', ms(g.lag_ms.p99)],
        ['lag max', ms(g.lag_ms.max)],
        ['found by the first search', pct(g.samples ? g.first_poll_hits / g.samples : null)],
        ['searches per sample, p50 / p99 / max', g.polls.count ? `${int(g.polls.p50)} / ${int(g.polls.p99)} / ${int(g.polls.max)}` : null],
        ['round trip of the search that found it, p50 / p99', g.found_search_ms.count ? `${ms(g.found_search_ms.p50)} / ${ms(g.found_search_ms.p99)}` : null],
        ['create p50 / p99 (autocannon)', `${ms(g.autocannon_create_latency.p50)} / ${ms(g.autocannon_create_latency.p99)}`],
        ['GET /health lag_events, max seen', int(g.health_max_lag_events)],
      ],
    ),
    '',
    ...(g.harness_creates > 0 && g.projection_pending === 0
      ? [`None of the ${int(g.harness_creates)} timed creates carried X-Projection-Pending although the service answered writes without waiting for the read model: it had applied each event before the response was sent, so the lag a client sees is at most one search round trip.`]
      : []),
    `Each lag runs from the create's 2xx to the answer of the first search that returns the token, so it includes that search's round trip and up to one ${g.poll_interval_ms} ms poll interval. ` +
      `The polls added ${int(g.searches)} searches (about ${int(g.searches / g.seconds)}/s) to the create load.`,
    '',
  );
}

export const searchIntro = (created, opts) => lines(`## Phase 4: search over ${int(created)} tokens (POST /tokens/search, 20 per page, ${opts.connections} connections)`, '');

export function search(s, baselineResult, opts) {
  const ratio = ratioTo(baselineResult);
  const latencyCells = (r) => [ms(r.latency.p50), ms(r.latency.p95), ms(r.latency.p99)];
  const kindRow = (name, label) => {
    const k = s.kinds[name];
    return [label, k.example.length > 70 ? k.example.slice(0, 67) + '...' : k.example, int(k.responses), rateCell(k.rps), pct(ratio(k.rps)), ...latencyCells(k), int(k.non2xx + k.timeouts)];
  };
  const mixRow = (key, label) => {
    const m = s[key];
    return [`**${key === 'mix' ? 'full mix' : 'selective mix'}**`, label, int(m.responses), rateCell(m.rps), pct(ratio(m.rps)), ...latencyCells(m), int(m.non2xx + m.timeouts)];
  };
  const broad = Object.keys(s.kinds).filter((name) => !s.selective_kinds.includes(name));
  const rows = [
    ...s.selective_kinds.map((name) => kindRow(name, name)),
    mixRow('selective_mix', `selective mix (${s.selective_kinds.join(', ')})`),
    ...broad.map((name) => kindRow(name, `${name} (${s.broad.requests} requests, ${s.broad.connections} conn.)`)),
    mixRow('mix', `full mix (all kinds above, in rotation; ${s.mix.requests} requests)`),
  ];
  return lines(
    `Each selective kind runs alone for ${s.per_kind_seconds} s and the selective mix for ${opts.duration} s at ${opts.connections} connections. Broad kinds answer ${s.broad.requests} requests each at ${s.broad.connections} connections; the full mix ${s.mix.requests} requests at ${opts.connections}.`,
    '',
    table(['kind', 'query', 'answers', 'req/s', 'vs baseline', 'p50', 'p95', 'p99', 'non-2xx + timeouts'], rows),
    '',
    'Within the full mix, per kind:',
    '',
    table(
      ['kind', 'answers', 'req/s', 'vs baseline', 'p50', 'p95', 'p99'],
      Object.entries(s.mix.by_kind).map(([name, k]) => [name, int(k.responses), rateCell(k.rps), pct(ratio(k.rps)), ...latencyCells(k)]),
    ),
    '',
  );
}

export const rebuildIntro = () => lines('## Phase 5: rebuild (node --no-node-snapshot dist/apps/cli/src/main.js projections rebuild, API running)', '');
/** A line of the CLI's own output, passed through while it runs. */
export const childLine = (line) => `  ${line}`;

export function rebuild(r, baselineResult) {
  const ratio = ratioTo(baselineResult);
  return lines(
    '',
    table(
      ['figure', 'value'],
      [
        ['events replayed', int(r.events)],
        ['rebuild seconds (CLI figure)', `${r.seconds} s`],
        ['events/s', rateCell(r.events_per_second)],
        ['vs baseline (events/s ÷ baseline req/s)', pct(ratio(r.events_per_second))],
        ['CLI wall time (incl. start-up)', `${r.wall_seconds} s`],
        ['CLI peak RSS (sampled every 100 ms)', mb(r.cli_peak_rss_bytes)],
        ['API switched to the rebuilt file (its log line), after the CLI exited', `${int(r.switched_after_ms)} ms`],
        ['API ready with lag 0 and the sample found, after the CLI exited', `${r.ready_with_lag_0 ? 'yes' : 'NO'}, after ${int(r.ready_after_ms)} ms`],
        ['GET /health/live every 20 ms during the rebuild and the switch: slowest answer (the event loop held)', `${ms(r.live_probe.max_ms)} (p50 ${ms(r.live_probe.p50_ms)}, ${int(r.live_probe.answers)} answers)`],
        ['  of those asked while the CLI ran / after it exited (following the swap)', `${ms(r.live_probe.during_cli_max_ms) ?? '—'} / ${ms(r.live_probe.after_cli_max_ms) ?? '—'}`],
        ['tokens visible to search afterwards', int(r.visible_after)],
      ],
    ),
    '',
  );
}

export const meiliIntro = () => lines('### Meilisearch catch-up (projector from this log into an empty Meilisearch read model)', '');
export const meiliSkipped = () => lines('Skipped: MEILI_URL is not set. Set MEILI_URL (and MEILI_MASTER_KEY) to a Meilisearch server to measure it.', '');

export function meili(result, opts, url) {
  return lines(
    table(
      ['figure', 'value'],
      [
        ['Meilisearch server', `v${result.meilisearch_version} at ${url}`],
        ['events applied', `${int(result.events_applied)} of ${int(result.log_events)}${result.caught_up ? ' (caught up)' : ` (stopped after ${opts.meiliSeconds} s)`}`],
        ['catch-up events/s', rateCell(result.events_per_second)],
        ['seconds', `${result.seconds} s`],
        ['batches (events per batch)', `${int(result.batches)} (${int(result.mean_batch_events)} on average, as the embedded log's subscription hands them over)`],
      ],
    ),
    '',
  );
}

export function memory(m) {
  const pids = m.processes.map((p) => p.pid);
  const which = pids.length === 1 ? `pid ${pids[0]}` : `pids ${pids.join(', ')}, one process per restart`;
  const hwmLabel = pids.length === 1 ? 'peak RSS (VmHWM)' : `peak RSS (VmHWM, highest of the ${pids.length} processes)`;
  return lines(
    `## Phase 6: memory of the service (${which}; VmRSS sampled every second, VmHWM from /proc at the end)`,
    '',
    table(
      ['phase', 'peak RSS (sampled)'],
      Object.entries(m.peak_rss_by_phase_bytes).map(([phase, bytes]) => [phase, mb(bytes)]),
    ),
    '',
    table(['figure', 'value'], [[hwmLabel, mb(m.vm_hwm_bytes)], ['RSS at N tokens (after loading)', mb(m.rss_at_n_bytes)], ['RSS now', mb(m.rss_now_bytes)]]),
    '',
  );
}

export function shutdown(s) {
  return lines(`Service stopped with SIGTERM: ${s.killed ? 'did NOT exit within 30 s, killed' : `exit code ${s.exit_code ?? s.signal}`} after ${s.ms} ms.`, '');
}

export const worstCaseIntro = () => lines('## Phase 7: worst-case bodies (scripts/bench/worst-case-bodies.mjs, the built app in-process)', '');

/** The first targets, set against the raw baseline, with a verdict each; returns the printed summary and the targets for the JSON. */
export function summary(results, opts, created) {
  const s = results.search;
  const base = results.baseline.rps;
  const lagResult = results.lag;
  const lagFailed = lagResult.not_searchable_within_timeout > 0;
  // [figure, measured (text), target (text), measured (number), limit, 'max' | 'min' | null, failed]
  const specs = [
    ['search p50, selective mix', ms(s.selective_mix.latency.p50), '≤ 3 ms', s.selective_mix.latency.p50, 3, 'max'],
    ['search p99, selective mix', ms(s.selective_mix.latency.p99), '≤ 15 ms', s.selective_mix.latency.p99, 15, 'max'],
    ['search throughput, selective mix', `${rateCell(s.selective_mix.rps)} (${pct(s.selective_mix.rps / base)})`, '≥ 35% of baseline', s.selective_mix.rps / base, 0.35, 'min'],
    ['search throughput, full mix', `${rateCell(s.mix.rps)} (${pct(s.mix.rps / base)})`, '≥ 35% of baseline', s.mix.rps / base, 0.35, 'min'],
    ['search p50 / p99, full mix (info)', `${ms(s.mix.latency.p50)} / ${ms(s.mix.latency.p99)}`, '(info)', s.mix.latency.p99, null, null],
    ['token creates/s', `${rateCell(results.create.tokens_per_s)} (${pct(results.create.tokens_per_s / base)})`, '≥ 3,000/s', results.create.tokens_per_s, 3000, 'min'],
    ['token creates vs baseline', pct(results.create.tokens_per_s / base), '≥ 20% of baseline', results.create.tokens_per_s / base, 0.2, 'min'],
    [
      `projection lag p99 at ${int(lagResult.achieved_creates_per_s)} creates/s (write wait 0)`,
      lagFailed ? `${ms(lagResult.lag_ms.p99) ?? 'no sample found'}; ${int(lagResult.not_searchable_within_timeout)} never searchable within ${lagResult.timeout_s} s` : ms(lagResult.lag_ms.p99),
      '≤ 100 ms',
      lagResult.lag_ms.p99,
      100,
      'max',
      lagFailed,
    ],
    ['rebuild', `${int(results.rebuild.events_per_second)} events/s`, '≥ 50,000 events/s', results.rebuild.events_per_second, 50000, 'min'],
    ['peak RSS of the service', mb(results.memory.peak_rss_bytes), '≤ 400 MB', results.memory.peak_rss_bytes, 400 * 1048576, 'max'],
    worstCaseSpec(results.worst_case_bodies),
  ];
  const verdict = (value, limit, kind, failed) => {
    if (failed) return 'FAIL';
    if (!kind) return '—';
    if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
    return (kind === 'max' ? value <= limit : value >= limit) ? 'PASS' : 'MISS';
  };
  const rows = specs.map(([figure, text, target, value, limit, kind, failed]) => [figure, text, target, verdict(value, limit, kind, failed)]);
  const targets = specs.map(([figure, text, target, value, limit, kind], i) => ({ figure, measured: text, target, value, limit, limit_is: kind, verdict: rows[i][3] }));
  const m = results.machine;
  const text = lines(
    `## Summary: ${int(created)} tokens, ${opts.connections} connections, baseline ${rateCell(base)}`,
    '',
    table(['figure', 'measured', 'target', 'verdict'], rows),
    '',
    ...(opts.tokens < 1_000_000 ? [`These targets are defined for 1,000,000 tokens on a 2-core machine; this run loaded ${int(opts.tokens)}.`] : []),
    ...(m.cores !== 2 ? [`This machine has ${m.cores} cores; the targets assume 2.`] : []),
    `Load average at start ${m.load_average.join(' ')}, at the end ${m.load_average_at_end.join(' ')} (other work on the machine skews every figure).`,
    ...(results.warnings.length > 0 ? [`${results.warnings.length} warning(s) above.`] : []),
  );
  return { text, targets };
}

/** The summary row of phase 7: the longest any endpoint's worst-case body held the event loop. */
function worstCaseSpec(worstCase) {
  const byEndpoint = worstCase?.by_endpoint ?? {};
  const [endpoint, max] = Object.entries(byEndpoint).sort((a, b) => b[1] - a[1])[0] ?? [null, null];
  return ['worst-case bodies: longest event-loop hold', max === null ? null : `${ms(max)} (${endpoint})`, '≤ 50 ms', max, 50, 'max'];
}

// The framework floor, the 1-connection latency phase, start-up at N tokens, every throughput against both the raw
// baseline and the floor, and the summary of the targets set against the floor.

export const frameworkFloorIntro = () =>
  lines('## Framework floor: minimal NestJS application on @nestjs/platform-express (scripts/bench/framework-floor-server.mjs)', '', 'One POST route returning a constant JSON body (the baseline\'s), Nest\'s defaults otherwise; started and loaded exactly like the baseline.', '');

export function frameworkFloor(f, opts) {
  const v = f.versions ?? {};
  return lines(
    table(
      ['server', 'connections', 'req/s', 'vs baseline', 'p50', 'p99', 'non-2xx'],
      [[`NestJS ${v['@nestjs/core']} (platform-express ${v['@nestjs/platform-express']}, express ${v.express}), POST small JSON`, opts.connections, rateCell(f.rps), pct(f.ratio_to_baseline), ms(f.latency.p50), ms(f.latency.p99), int(f.non2xx)]],
    ),
    '',
  );
}

export const startupIntro = (tokens) => lines(`## Start-up at ${int(tokens)} tokens (restart on the same data dir until GET /health/ready answers 200)`, '');

export function startupAtN(s) {
  return lines(
    table(
      ['figure', 'value'],
      [
        ['tokens', int(s.tokens)],
        ['previous process stopped (SIGTERM, exit 0) in', ms(s.stop_ms)],
        ['spawn → listening', ms(s.listening_ms)],
        ['spawn → /health/ready 200', ms(s.ready_ms)],
        ['target', `≤ ${ms(s.target_ms)}: ${s.ready_ms <= s.target_ms ? 'PASS' : 'MISS'}`],
      ],
    ),
    '',
    'The data files were just written and are in the OS page cache: a restart, not a cold boot.',
    '',
  );
}

export function latencyIntro(n, { seconds, min, warm }) {
  return lines(
    '## 1-connection latency: every query kind, each execution a first run (POST /tokens/search, 20 per page)',
    '',
    `One request at a time on one connection, on the service just restarted. No query text repeats within the phase (other ids, values, customer ids, date-time bounds), so no result or total cache can answer one. Up to ${int(n)} requests a kind; a kind stops after ${seconds} s once it has ${min}. ` +
      (warm ? `Before any kind is timed, ${warm[0]} (selective) or ${warm[1]} (broad) unreported requests a kind, with their own query texts, warm the code (V8 optimises a function after some hundreds of calls) and the page cache.` : 'No warm-up (--warmup 0).') +
      ' After the timing, up to 10 answers a kind have their total_items checked against the exact count (every page of a selective query; broad ones through other queries).',
    '',
  );
}

export function latency1conn(l) {
  const rows = Object.entries(l.kinds).map(([name, k]) => [
    name,
    int(k.requests),
    ms(k.latency.p50),
    ms(k.latency.p95),
    ms(k.latency.p99),
    ms(k.latency.max),
    `${k.totals_exact}/${k.totals_checked}`,
    k.selective ? `p50 ≤ ${l.targets.selectiveP50} ms, p99 ≤ ${l.targets.selectiveP99} ms` : `p99 ≤ ${l.targets.broadP99} ms`,
    k.verdict,
  ]);
  const timeCut = Object.entries(l.kinds).filter(([, k]) => k.stopped_by_time).map(([name]) => name);
  return lines(
    table(['kind', 'requests', 'p50', 'p95', 'p99', 'max', 'exact totals', 'target', 'verdict'], rows),
    '',
    ...(timeCut.length ? [`Stopped by the time limit before ${int(l.requests_per_kind)} requests: ${timeCut.join(', ')}.`, ''] : []),
  );
}

/** Every throughput figure of the run as req/s, and as a share of the raw baseline and of the framework floor. */
export function throughputRatios(results) {
  const rows = throughputFigures(results);
  const base = results.baseline?.rps ?? null;
  const floor = results.framework_floor?.rps ?? null;
  const share = (rps, of) => (of ? rps / of : null);
  const json = rows.map(([figure, rps]) => ({ figure, rps, ratio_to_baseline: share(rps, base), ratio_to_framework_floor: share(rps, floor) }));
  const text = lines(
    `## Throughput against the raw baseline (${base ? rateCell(base) : '—'}) and the framework floor (${floor ? rateCell(floor) : '—'})`,
    '',
    table(['figure', 'rate', 'vs baseline', 'vs framework floor'], json.map((r) => [r.figure, rateCell(r.rps), pct(r.ratio_to_baseline), pct(r.ratio_to_framework_floor)])),
    '',
  );
  return { text, json };
}

function throughputFigures(r) {
  const rows = [];
  if (r.framework_floor && r.baseline) rows.push(['framework floor (NestJS, one POST route)', r.framework_floor.rps]);
  if (r.create) rows.push([`creates, ${r.create.connections} connections`, r.create.tokens_per_s]);
  if (r.load?.tokens_per_s) rows.push(['creates while loading to N (wall clock)', r.load.tokens_per_s]);
  if (r.lag) rows.push([`creates achieved in the lag phase (asked ${int(r.lag.target_rate)}/s)`, r.lag.achieved_creates_per_s]);
  if (r.search) {
    for (const [name, k] of Object.entries(r.search.kinds)) rows.push([`search: ${name} (${k.connections} conn.)`, k.rps]);
    rows.push([`search: selective mix (${r.search.selective_mix.connections} conn.)`, r.search.selective_mix.rps]);
    rows.push([`search: full mix (${r.search.mix.connections} conn.)`, r.search.mix.rps]);
  }
  if (r.rebuild) rows.push(['rebuild (events/s)', r.rebuild.events_per_second]);
  if (r.react?.react_ms?.mean) rows.push(['react, trivial reactor, one at a time (1000 / mean ms)', 1000 / r.react.react_ms.mean]);
  if (r.audit) {
    rows.push(['audit: reveals, access records on (median of sequential runs)', r.audit.sequential.rps_on]);
    rows.push(['audit: reveals, access records off (median of sequential runs)', r.audit.sequential.rps_off]);
  }
  if (r.proxy) {
    const n = r.proxy.connections.throughput;
    const paths = r.proxy.summary[n];
    rows.push([`proxy: the destination directly (${n} conn., median of ${r.proxy.rounds})`, paths.direct.rps]);
    rows.push([`proxy: through POST /proxy, no detokenization (${n} conn., median of ${r.proxy.rounds})`, paths.pass_through.rps]);
    rows.push([`proxy: through POST /proxy, one token detokenized (${n} conn., median of ${r.proxy.rounds})`, paths.detokenized.rps]);
  }
  return rows.filter(([, rps]) => Number.isFinite(rps));
}

/** The targets set against the framework floor, with a verdict each; returns the printed table and the targets for the JSON. */
export function summaryFloorTargets(results, opts) {
  const floor = results.framework_floor?.rps ?? null;
  const l = results.latency_1conn;
  const kinds = Object.entries(l?.kinds ?? {});
  const worst = [...kinds].sort((a, b) => b[1].latency.p99 - a[1].latency.p99)[0] ?? null;
  const checked = kinds.reduce((n, [, k]) => n + k.totals_checked, 0);
  const exact = kinds.reduce((n, [, k]) => n + k.totals_exact, 0);
  const selective = kinds.filter(([, k]) => k.selective);
  const pooled = l?.selective_pooled ?? null;
  const s = results.search;
  const writeWait = opts.serviceEnv.VAULT_WRITE_WAIT_MS;
  const lagResult = results.lag;
  const lagFailed = lagResult ? lagResult.not_searchable_within_timeout > 0 : false;
  const ofFloor = (rps) => (floor && Number.isFinite(rps) ? rps / floor : null);
  // [figure, measured, target, verdict]
  const check = (ok) => (ok === null ? 'n/a' : ok ? 'PASS' : 'MISS');
  const rows = [
    [
      'every kind of the mix, first run, 1 connection',
      worst ? `worst p99 ${ms(worst[1].latency.p99)} (${worst[0]}); exact totals ${exact}/${checked}` : null,
      'p99 ≤ 50 ms, exact total_items',
      check(worst ? worst[1].latency.p99 <= 50 && exact === checked : null),
    ],
    ...kinds
      .filter(([, k]) => !k.selective)
      .map(([name, k]) => [`  ${name}, 1 connection`, `p50 ${ms(k.latency.p50)}, p99 ${ms(k.latency.p99)} (${int(k.requests)} requests)`, 'p99 ≤ 50 ms, exact total_items', k.verdict]),
    [
      `selective search, 1 connection (${selective.length} kinds pooled)`,
      pooled ? `p50 ${ms(pooled.p50)}, p99 ${ms(pooled.p99)} (${int(pooled.count)} requests)` : null,
      'p50 ≤ 1 ms, p99 ≤ 3 ms',
      check(pooled ? pooled.p50 <= 1 && pooled.p99 <= 3 : null),
    ],
    ...selective.map(([name, k]) => [`  ${name}, 1 connection`, `p50 ${ms(k.latency.p50)}, p99 ${ms(k.latency.p99)}`, 'p50 ≤ 1 ms, p99 ≤ 3 ms', k.verdict]),
    [
      `selective search throughput, ${s?.selective_mix.connections ?? opts.connections} connections`,
      s ? `${rateCell(s.selective_mix.rps)} (${pct(ofFloor(s.selective_mix.rps))} of the floor)` : null,
      '≥ 70% of the framework floor',
      check(s && floor ? ofFloor(s.selective_mix.rps) >= 0.7 : null),
    ],
    [
      `creates, ${results.create?.connections ?? opts.connections} connections, read-your-writes kept`,
      results.create ? `${rateCell(results.create.tokens_per_s)} (${pct(ofFloor(results.create.tokens_per_s))} of the floor)${writeWait !== undefined ? `; VAULT_WRITE_WAIT_MS=${writeWait} set by --service-env` : ''}` : null,
      '≥ 50% of the framework floor',
      writeWait !== undefined ? 'n/a' : check(results.create && floor ? ofFloor(results.create.tokens_per_s) >= 0.5 : null),
    ],
    [
      `real projection lag p99 at ${lagResult ? int(lagResult.achieved_creates_per_s) : '—'} creates/s (write wait 0)`,
      lagResult ? (lagFailed ? `${ms(lagResult.lag_ms.p99) ?? 'no sample found'}; ${int(lagResult.not_searchable_within_timeout)} never searchable` : ms(lagResult.lag_ms.p99)) : null,
      'p99 ≤ 50 ms at 1,000 creates/s',
      lagFailed ? 'FAIL' : opts.lagRate !== 1000 ? 'n/a' : check(lagResult ? lagResult.lag_ms.p99 <= 50 : null),
    ],
    ['rebuild', results.rebuild ? `${int(results.rebuild.events_per_second)} events/s` : null, '≥ 50,000 events/s', check(results.rebuild ? results.rebuild.events_per_second >= 50_000 : null)],
    [
      `start-up at ${results.startup_at_n ? int(results.startup_at_n.tokens) : '—'} tokens until /health/ready`,
      results.startup_at_n ? ms(results.startup_at_n.ready_ms) : null,
      '≤ 10 s',
      check(results.startup_at_n ? results.startup_at_n.ready_ms <= 10_000 : null),
    ],
    ['peak RSS of the service', results.memory ? mb(results.memory.peak_rss_bytes) : null, '≤ 500 MB', check(results.memory ? results.memory.peak_rss_bytes <= 500 * 1048576 : null)],
  ];
  const targets = rows.map(([figure, measured, target, verdict]) => ({ figure: figure.trim(), measured, target, verdict }));
  const text = lines(
    '',
    `## Summary of the targets set against the framework floor: floor ${floor ? rateCell(floor) : '—'}${results.baseline ? `, raw baseline ${rateCell(results.baseline.rps)}` : ''}`,
    '',
    table(['figure', 'measured', 'target', 'verdict'], rows),
    '',
    ...(opts.tokens < 1_000_000 ? [`These targets are defined for 1,000,000 tokens on a 2-core machine; this run loaded ${int(opts.tokens)}.`] : []),
    ...(opts.lagRate !== 1000 ? [`The lag target is defined at 1,000 creates/s; this run asked for ${int(opts.lagRate)} (--lag-rate), so its verdict is n/a.`] : []),
    '',
  );
  return { text, targets };
}

// The proxy phase: the destination directly and through POST /proxy, at 1 connection and at --connections.

export function proxyIntro(opts, port, rounds) {
  return lines(
    `## Proxy: the destination directly and through POST /proxy (1 connection, then ${opts.connections}; ${rounds} rounds of ${opts.duration} s a path)`,
    '',
    `Destination: scripts/bench/proxy-destination-server.mjs (node:http, its own process) on 127.0.0.1:${port}, answering the raw baseline's small JSON body; the service runs with VAULT_PROXY_ALLOWED_HOSTS=127.0.0.1:${port}. ` +
      'Caller: a private application with token:use only (its implicit rule masks, so every answer passes the flow-back guard). Proxy: require_auth true, no transforms. ' +
      `Each connection count runs ${rounds} rounds of the three paths in alternating order; every figure is the median of the rounds, an overhead the median of each round's difference.`,
    '',
  );
}

export function proxy(p, opts) {
  const LABELS = { direct: 'the destination directly', pass_through: 'through POST /proxy, no detokenization', detokenized: 'through POST /proxy, one {{ token }} detokenized' };
  const n = p.connections.throughput;
  const rows = Object.entries(p.summary).flatMap(([connections, paths]) =>
    Object.entries(paths).map(([name, r]) => [
      LABELS[name],
      connections,
      rateCell(r.rps),
      Number(connections) === n && p.framework_floor_rps ? pct(r.rps / p.framework_floor_rps) : null,
      ms(r.p50),
      ms(r.p99),
      r.p50_per_round.map((v) => ms(v)).join(', '),
      r.service_cpu_us_per_request === null ? `(idle: ${int(r.service_idle_cpu_ms_per_s)} ms/s)` : `${int(r.service_cpu_us_per_request)} µs`,
      int(r.failed),
    ]),
  );
  const o = p.overhead_1conn_ms;
  const share = (name) => `${rateCell(p.summary[n][name].rps)} (${pct(p.share_of_floor[name]) ?? 'no floor in this run'})`;
  return lines(
    table(['path', 'connections', 'req/s', 'of the floor', 'p50', 'p99', 'p50 of each round', 'service CPU per request', 'non-2xx + errors'], rows),
    '',
    table(
      ['figure', 'measured', 'target', 'verdict'],
      [
        ['pass-through overhead p50, 1 connection (through − direct)', ms(o.pass_through.p50), `≤ ${p.targets.overheadP50Ms} ms`, p.verdicts.overhead_p50],
        ['pass-through overhead p99, 1 connection', ms(o.pass_through.p99), '(info)', '—'],
        ['with one token detokenized: overhead p50 / p99, 1 connection', `${ms(o.detokenized.p50)} / ${ms(o.detokenized.p99)}`, '(info)', '—'],
        [`pass-through throughput, ${n} connections, of the framework floor`, share('pass_through'), `≥ ${pct(p.targets.floorShare)} of the floor`, p.verdicts.throughput],
        [`with one token detokenized, ${n} connections`, share('detokenized'), '(info)', '—'],
      ],
    ),
    '',
    `The floor is the framework-floor run of this bench run (${p.framework_floor_rps ? rateCell(p.framework_floor_rps) : '—'}, ${opts.connections} connections). ` +
      'Through the proxy the destination shares the cores with the service and the load generator, as it does when loaded directly. ' +
      `Service CPU per request: user and system time of the service process (every thread) over the run's answers. Load average before the phase ${p.load_average.before.join(' ')}, after ${p.load_average.after.join(' ')}.`,
    '',
  );
}

export function webhooksIntro(opts, port, hooks, rate) {
  return lines(
    `## Webhooks: ${hooks} webhooks on token.created, ${int(rate)} creates/s for ${opts.duration} s (open loop)`,
    '',
    `Receiver: scripts/bench/webhook-receiver-server.mjs (node:http, its own process) on 127.0.0.1:${port}, answering 200 with an empty body, one path per webhook; the service runs with VAULT_WEBHOOK_ALLOWED_HOSTS=127.0.0.1:${port}. ` +
      'The harness sends each create when it is due on its own timer, whatever the earlier ones are doing, then waits for every 201 to reach every webhook. ' +
      "Latency of a delivery: when the receiver had read it in full, minus when the create's 201 reached the harness, and minus the event's created_at (its append; ms resolution).",
    '',
  );
}

export function webhooks(w) {
  const c = w.creates;
  const rows = w.by_webhook.map((r) => [
    r.webhook,
    int(r.expected),
    int(r.delivered),
    int(r.duplicates),
    r.delivered_per_s === null ? null : rateCell(r.delivered_per_s),
    ms(r.latency_since_answer_ms.p50),
    ms(r.latency_since_answer_ms.p99),
    ms(r.latency_since_answer_ms.max),
    ms(r.latency_since_created_at_ms.p99),
    ms(r.latency_since_created_at_ms.max),
    int(r.delivered_late),
    r.verdict,
  ]);
  return lines(
    table(['webhook', 'expected', 'delivered', 'duplicates', 'delivered/s', 'p50 since 201', 'p99 since 201', 'max since 201', 'p99 since created_at', 'max since created_at', `later than ${w.targets.withinMs / 1000} s`, 'verdict'], rows),
    '',
    table(
      ['figure', 'measured', 'target', 'verdict'],
      [[`every create delivered to each of the ${w.webhooks} webhooks, each within ${w.targets.withinMs / 1000} s of its created_at`, w.by_webhook.map((r) => `${int(r.delivered)}/${int(r.expected)}, max ${ms(r.latency_since_created_at_ms.max)}`).join('; '), `all, ≤ ${w.targets.withinMs / 1000} s`, w.verdict]],
    ),
    '',
    `Creates: ${int(c.sent)} sent in ${c.send_seconds} s (${rateCell(c.achieved_rate_per_s)}), ${int(c.answered_201)} answered 201 (statuses ${JSON.stringify(c.statuses)}), the last after ${c.all_answered_after_s} s; ` +
      `create latency p50 ${ms(c.latency_ms.p50)}, p99 ${ms(c.latency_ms.p99)}, max ${ms(c.latency_ms.max)}, at most ${int(c.peak_in_flight)} in flight. ` +
      `The harness then waited ${w.waited_for_deliveries_s} s for the deliveries. Delivered/s: a webhook's events over the time from its first receipt to its last. ` +
      `Service CPU (user + system, every thread) from the first create to the last delivery: ${w.service_cpu_s} s, ${ms(w.service_cpu_ms_per_create)} per create with its ${w.webhooks} deliveries. ` +
      `A delivery can reach the receiver before its create's 201 reaches the harness (the runner is woken by the append, the answer waits for the read model): such a latency since the 201 is negative. ` +
      `Load average before the phase ${w.load_average.before.join(' ')}, after ${w.load_average.after.join(' ')}.`,
    '',
  );
}
