// Webhook delivery through a SIGKILL of the built service. A receiver in this process (node:http) records every
// delivery and, on one delivery in the middle of a burst of token creates, answers it 200 and kills the service at
// once: the kill falls between the receiver's 2xx and the runner's record of it. The service is started again on the
// same data dir, the writers finish, and every token whose create answered 201 must reach the receiver.
//
// What at-least-once allows, and all this test allows: the runner sends the next event while the outcomes before it
// are being appended (at most MAX_UNRECORDED_OUTCOMES of them not durable at once), so a kill makes the restarted runner
// send again the events whose outcome was not durable yet: the last few the receiver got before the kill, each listed
// delivered with the attempts of the restarted runner only. An event whose outcome was recorded before the kill is
// never sent again, and no event is skipped.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_UNRECORDED_OUTCOMES } from '@vault/application';
import { ApiProcess, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'webhook-crash-bootstrap-key-0123456789abcdef';
const WRITERS = 6;
const CREATES_PER_WRITER = 50;
/** The receiver kills the service as it answers the first delivery after this many creates answered 201. */
const KILL_AFTER_CREATES = 100;

interface Receipt {
  eventId: string;
  tokenId: string;
  /** Which service process sent it: 1 before the kill, 2 after the restart. */
  run: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook delivery through a SIGKILL of the service', () => {
  let dataDir: string;
  let api: ApiProcess | null = null;
  let server: Server;
  let receiverHost: string;
  const receipts: Receipt[] = [];
  let run = 1;
  /** Set when the receiver killed the service. */
  let killed: Promise<unknown> | null = null;
  /** When the receiver killed the service (ISO 8601, as the listing's times). */
  let killTimeIso = '';
  /** Per writer, the tokens whose create answered 201, in the order it created them. */
  const answered: string[][] = Array.from({ length: WRITERS }, () => []);

  const env = () => ({
    VAULT_DATA_DIR: dataDir,
    VAULT_BOOTSTRAP_KEY: BOOTSTRAP,
    VAULT_RATE_LIMIT_PER_SECOND: '100000',
    VAULT_WEBHOOK_ALLOWED_HOSTS: receiverHost,
  });
  const call = (path: string, key: string, init: RequestInit = {}) =>
    fetch(api!.url + path, { ...init, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-webhook-crash-'));
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      // A request the kill cut off ends in an error, not in a receipt.
      request.on('error', () => undefined);
      response.on('error', () => undefined);
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; data: { id: string } };
        receipts.push({ eventId: body.id, tokenId: body.data.id, run });
        response.statusCode = 200;
        response.end('ok');
        if (run === 1 && killed === null && api && answered.flat().length >= KILL_AFTER_CREATES) {
          // The 2xx is written; the service dies before it can have recorded it.
          killTimeIso = new Date().toISOString();
          killed = api.stop('SIGKILL');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverHost = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await api?.stop('SIGKILL');
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no event, sends none again once recorded delivered, and keeps log order', async () => {
    api = await startApiProcess(env());
    const writer = await call('/applications', BOOTSTRAP, { method: 'POST', body: JSON.stringify({ name: 'writer', type: 'private', permissions: ['token:create'] }) });
    expect(writer.status).toBe(201);
    const writerKey = ((await writer.json()) as { key: string }).key;
    const hook = await call('/webhooks', BOOTSTRAP, { method: 'POST', body: JSON.stringify({ name: 'crash', url: `http://${receiverHost}/hook`, events: ['token.created'] }) });
    expect(hook.status).toBe(201);
    const webhookId = ((await hook.json()) as { id: string }).id;

    // Each writer creates its tokens one after the other, so its 201s are in log order. A create the kill cut off
    // has no answer (it may or may not be in the log); the writer waits for the restart and goes on with the next.
    let restarted: Promise<void> | null = null;
    const unanswered: number[] = [];
    const write = async (w: number) => {
      for (let i = 0; i < CREATES_PER_WRITER; i++) {
        try {
          const created = await call('/tokens', writerKey, { method: 'POST', body: JSON.stringify({ type: 'social_security_number', data: `${100 + w}-45-${String(1000 + i)}` }) });
          if (created.status === 201) answered[w].push(((await created.json()) as { id: string }).id);
          else unanswered.push(created.status);
        } catch {
          unanswered.push(0);
          while (restarted === null) await sleep(10);
          await restarted;
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => write(w));

    const started = Date.now();
    while (killed === null) {
      if (Date.now() - started > 20_000) throw new Error(`no kill within 20 s: ${answered.flat().length} creates answered, ${receipts.length} deliveries`);
      await sleep(5);
    }
    await killed;
    const killedAfterMs = Date.now() - started;
    const answeredAtKill = answered.flat().length;
    const deliveredAtKill = receipts.length;
    run = 2;
    restarted = startApiProcess(env()).then((process) => {
      api = process;
    });
    await restarted;
    const restartMs = Date.now() - started - killedAfterMs;
    await Promise.all(writers);
    const tokens = answered.flat();
    // The kill fell mid-burst: creates had answered before it and went on after it.
    expect(answeredAtKill).toBeGreaterThan(0);
    expect(answeredAtKill).toBeLessThan(WRITERS * CREATES_PER_WRITER);
    expect(tokens.length).toBeGreaterThanOrEqual(WRITERS * CREATES_PER_WRITER - WRITERS);

    // No event lost: every 201'd token's created event reaches the receiver.
    const deadline = Date.now() + 20_000;
    const seen = () => new Set(receipts.map((r) => r.tokenId));
    while (tokens.some((id) => !seen().has(id))) {
      if (Date.now() > deadline) throw new Error(`not delivered within 20 s of the restart: ${tokens.filter((id) => !seen().has(id)).length} of ${tokens.length}`);
      await sleep(50);
    }

    const allDeliveredMs = Date.now() - started;

    // The vault's own record, read through the API once it lists every event the receiver got (oldest first after
    // the reverse: the listing is in log order, the latest event first).
    type Delivery = { event_id: string; state: string; attempts: number; last_attempt_at: string };
    const readDeliveries = async (): Promise<Delivery[]> => {
      const all: Delivery[] = [];
      for (let page = 1; ; page++) {
        const listed = (await (await call(`/webhooks/${webhookId}/deliveries?size=100&page=${page}`, BOOTSTRAP)).json()) as {
          data: Delivery[];
          pagination: { total_pages: number };
        };
        all.push(...listed.data);
        if (page >= listed.pagination.total_pages) return all.reverse();
      }
    };
    const eventIds = new Set(receipts.map((r) => r.eventId));
    let deliveries = await readDeliveries();
    while (deliveries.length < eventIds.size || deliveries.some((d) => d.state !== 'delivered')) {
      if (Date.now() > deadline) throw new Error(`deliveries listed: ${deliveries.length}, events received: ${eventIds.size}`);
      await sleep(50);
      deliveries = await readDeliveries();
    }
    // Nothing arrives after the listing caught up (a late duplicate would show here).
    await sleep(500);

    // Each event the receiver got, once, in the order it first got it; and how often it got each.
    const firstOrder: string[] = [];
    const count = new Map<string, number>();
    for (const r of receipts) {
      if (!count.has(r.eventId)) firstOrder.push(r.eventId);
      count.set(r.eventId, (count.get(r.eventId) ?? 0) + 1);
    }

    // Log order: the receiver's first receipts are the listing's events in log order, and each writer's tokens arrive
    // in the order the writer created them.
    expect(deliveries.map((d) => d.event_id)).toEqual(firstOrder);
    const tokenOrder = new Map<string, number>();
    for (const r of receipts) if (!tokenOrder.has(r.tokenId)) tokenOrder.set(r.tokenId, tokenOrder.size);
    for (const ids of answered) {
      const positions = ids.map((id) => tokenOrder.get(id)!);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }

    // Sent again: only events whose outcome was not durable at the kill, the last few received before it.
    const beforeKill = receipts.filter((r) => r.run === 1);
    const lastBeforeKill = [...new Set(beforeKill.map((r) => r.eventId))].slice(-MAX_UNRECORDED_OUTCOMES);
    const sentAgain = [...new Set(receipts.filter((r) => r.run === 2 && beforeKill.some((b) => b.eventId === r.eventId)).map((r) => r.eventId))];
    for (const id of sentAgain) expect(lastBeforeKill).toContain(id);
    // Against the listing: an event recorded before the kill (its last attempt is older than the kill) was received
    // exactly as often as its recorded attempts; one sent again has one receipt more (its 2xx never recorded).
    const killedAt = killTimeIso;
    for (const d of deliveries) {
      if (d.last_attempt_at < killedAt) expect(count.get(d.event_id)).toBe(d.attempts);
      else expect(count.get(d.event_id)! - d.attempts).toBeLessThanOrEqual(1);
    }
    for (const id of sentAgain) expect(deliveries.find((d) => d.event_id === id)!.last_attempt_at > killedAt).toBe(true);
    // Every event the receiver got is listed delivered, and no listed event went unreceived.
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(eventIds);
    // Every 201'd token's event is among them; other received tokens can only be creates the kill cut off.
    expect(new Set(receipts.map((r) => r.tokenId)).size - tokens.length).toBeLessThanOrEqual(unanswered.length);

    process.stdout.write(
      `webhook crash: ${tokens.length} creates answered 201 (${answeredAtKill} before the kill, ${unanswered.length} cut off), ` +
        `killed on delivery ${deliveredAtKill}, ` +
        `${receipts.length} deliveries of ${eventIds.size} events, sent again: ${sentAgain.length}; ` +
        `killed at ${killedAfterMs} ms, restarted in ${restartMs} ms, all delivered at ${allDeliveredMs} ms\n`,
    );
  }, 60_000);
});
