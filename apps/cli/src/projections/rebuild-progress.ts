import type { RebuildProgress } from '@vault/application';

/** One progress line; until the end the total is estimated from how far through the log the rebuild is. */
export function formatProgress(p: RebuildProgress): string {
  const total = p.percent >= 100 ? `${p.total}` : `~${p.total}`;
  const eta = p.etaSeconds === null ? '?' : `${Math.ceil(p.etaSeconds)}s`;
  return `rebuild: ${p.events}/${total} events (${p.percent}%), ${Math.round(p.eventsPerSecond)} events/s, ETA ${eta}`;
}
