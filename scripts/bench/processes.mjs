// Child processes of the bench: the load generator (load.mjs), waiting for a child's start-up line, stopping a child,
// waiting for one within the run's time left. Every child is in ctx.children while it runs, so a failure kills it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BenchError, PATHS } from './context.mjs';
import { onLines, sleep } from './util.mjs';

/** Runs scripts/bench/load.mjs with `config`; resolves its JSON result. Stalls (no response for 60 s) and the deadline kill it. */
export function runLoad(ctx, label, config, { onProgress } = {}) {
  if (ctx.remainingMs() <= 0) throw new BenchError(`out of time (--max-minutes ${ctx.opts.maxMinutes}) before ${label}`);
  const file = join(ctx.tmp, `load-${process.hrtime.bigint()}.json`);
  writeFileSync(file, JSON.stringify({ progressMs: 1000, ...config }));
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [PATHS.LOAD, file], { cwd: PATHS.ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    ctx.children.add(child);
    let stdout = '';
    const stderrTail = [];
    let lastResponses = -1;
    let lastChange = performance.now();
    let killedFor = null;
    child.stdout.on('data', (c) => (stdout += c));
    onLines(child.stderr, (line) => {
      if (line.startsWith('{"progress"')) {
        const p = JSON.parse(line).progress;
        if (p.responses !== lastResponses) {
          lastResponses = p.responses;
          lastChange = performance.now();
        }
        onProgress?.(p);
      } else {
        stderrTail.push(line);
        if (stderrTail.length > 30) stderrTail.shift();
      }
    });
    const watchdog = setInterval(() => {
      if (performance.now() - lastChange > 60_000) killedFor = 'no response for 60 s';
      else if (ctx.remainingMs() <= 0) killedFor = `out of time (--max-minutes ${ctx.opts.maxMinutes})`;
      else return;
      child.kill('SIGKILL');
    }, 1000);
    child.on('exit', (code, signal) => {
      clearInterval(watchdog);
      ctx.children.delete(child);
      try {
        unlinkSync(file);
      } catch {
        /* already gone */
      }
      if (killedFor) return reject(new BenchError(`${label}: load generator killed: ${killedFor}`));
      if (code !== 0) {
        return reject(new BenchError(`${label}: load generator exited with ${code ?? signal}:\n${stderrTail.join('\n')}`));
      }
      try {
        resolvePromise(JSON.parse(stdout.trim().split('\n').pop()));
      } catch {
        reject(new BenchError(`${label}: load generator printed no result:\n${stdout.slice(-2000)}\n${stderrTail.join('\n')}`));
      }
    });
  });
}

/**
 * Waits for a JSON line with msg === `msg` in a file that a child writes to, written past byte `from` (a file shared
 * by successive children is read from where the new one starts); resolves the parsed line.
 */
export async function waitForLine(path, msg, child, what, timeoutMs, { from = 0 } = {}) {
  const until = performance.now() + timeoutMs;
  let offset = from;
  let pending = '';
  while (performance.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new BenchError(`${what} exited during start-up (${child.exitCode ?? child.signalCode})`);
    }
    if (existsSync(path)) {
      const fd = openSync(path, 'r');
      try {
        const size = fstatSync(fd).size;
        if (size > offset) {
          const buf = Buffer.alloc(size - offset);
          readSync(fd, buf, 0, buf.length, offset);
          offset = size;
          pending += buf.toString('utf8');
          const lines = pending.split('\n');
          pending = lines.pop();
          for (const line of lines) {
            try {
              const parsed = JSON.parse(line);
              if (parsed.msg === msg) return parsed;
            } catch {
              /* not a JSON line */
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    }
    await sleep(50);
  }
  throw new BenchError(`${what} did not log "${msg}" within ${timeoutMs / 1000} s`);
}

/** SIGTERM, then SIGKILL after timeoutMs; resolves { code, signal, killed?, ms }. */
export async function stopChild(ctx, child, timeoutMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, ms: 0 };
  const started = performance.now();
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  child.kill('SIGTERM');
  const timer = sleep(timeoutMs).then(() => null);
  let outcome = await Promise.race([exited, timer]);
  if (!outcome) {
    child.kill('SIGKILL');
    outcome = { ...(await exited), killed: true };
  }
  ctx.children.delete(child);
  return { ...outcome, ms: Math.round(performance.now() - started) };
}

/** Waits for a child process to exit; kills it when the run's time is up. */
export function exitWithinTimeLeft(ctx, child) {
  return new Promise((r) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      r({ timeout: true });
    }, Math.max(1000, ctx.remainingMs()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      r({ code, signal });
    });
  });
}
