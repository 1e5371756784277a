// Starts the service as a user would (fresh data dir, embedded stores, random bootstrap key) and creates the private
// application whose key every later phase uses. `overrides`: environment a phase needs the service to start with (the
// proxy phase's VAULT_PROXY_ALLOWED_HOSTS), on top of --service-env.
import { randomBytes } from 'node:crypto';
import { expectStatus } from '../api.mjs';
import { BenchError } from '../context.mjs';
import * as report from '../report.mjs';
import { enterPhase, RATE_LIMIT, startService } from '../service.mjs';
import { request } from '../util.mjs';

export async function serviceStart(ctx, overrides = {}) {
  const { opts } = ctx;
  enterPhase(ctx, 'start-up');
  ctx.bootstrapKey = `bench-bootstrap-${randomBytes(24).toString('hex')}`;
  ctx.log(report.serviceIntro());
  const started = await startService(ctx, overrides);
  ctx.log(report.serviceStarted({ opts, started, dataDir: ctx.dataDir, serviceLog: ctx.serviceLog, rateLimit: RATE_LIMIT, overrides }));
  const app = await expectStatus(
    'create the benchmark application',
    request(ctx.service.port, 'POST', '/applications', {
      body: { name: 'bench', type: 'private', permissions: ['token:create', 'token:read', 'token:search'] },
      headers: { 'svc-api-key': ctx.bootstrapKey },
    }),
    [201],
  );
  ctx.apiKey = app.json.key;
  if (!ctx.apiKey) throw new BenchError('POST /applications answered without a key');
  ctx.log(report.applicationCreated());
  ctx.results.settings = {
    tokens: opts.tokens,
    duration_s: opts.duration,
    connections: opts.connections,
    pipelining: 1,
    seed: opts.seed,
    warmup_s: opts.warmup,
    service: {
      command: `node --no-node-snapshot ${opts.serviceArgs.join(' ')} dist/apps/api/src/main.js`.replace(/\s+/g, ' '),
      startup_ms: started.startup_ms,
      env: { VAULT_RATE_LIMIT_PER_SECOND: RATE_LIMIT, VAULT_EVENT_STORE: 'embedded', VAULT_SEARCH: 'embedded', ...opts.serviceEnv, ...overrides },
      listening: started.line,
    },
  };
}
