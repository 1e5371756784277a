import type { RebuildProgress } from '@vault/application';

export function formatProgress(p: RebuildProgress): string {
  const percent = p.total > 0 ? Math.floor((p.events / p.total) * 100) : 100;
  const eta = p.etaSeconds === null ? '?' : `${Math.ceil(p.etaSeconds)}s`;
  return `rebuild: ${p.events}/${p.total} events (${percent}%), ${Math.round(p.eventsPerSecond)} events/s, ETA ${eta}`;
}
