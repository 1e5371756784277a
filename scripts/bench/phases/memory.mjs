// Phase 6: the service's peak RSS: VmRSS sampled every second per phase, and VmHWM of every service process (the
// running one now, the ones stopped for the lag phase's restarts when they stopped).
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';
import { readMemory } from '../util.mjs';

export function memory(ctx) {
  enterPhase(ctx, 'end');
  const m = readMemory(ctx.service.pid);
  const processes = ctx.serviceProcesses.map((p) => ({ pid: p.pid, env_overrides: p.env_overrides, vm_hwm_bytes: p.pid === ctx.service.pid ? (m?.hwm ?? null) : p.vm_hwm_bytes }));
  const hwm = Math.max(0, ...processes.map((p) => p.vm_hwm_bytes ?? 0)) || null;
  const sampled = ctx.memory.peakRss;
  ctx.results.memory = {
    peak_rss_bytes: Math.max(hwm ?? 0, sampled) || null,
    vm_hwm_bytes: hwm,
    rss_now_bytes: m?.rss ?? null,
    sampled_peak_rss_bytes: sampled || null,
    samples: ctx.memory.samples,
    peak_rss_by_phase_bytes: ctx.memory.byPhase,
    rss_at_n_bytes: ctx.results.load?.rss_bytes_at_n ?? null,
    processes,
  };
  ctx.log(report.memory(ctx.results.memory));
}
