// Small helpers for the benchmark harness: an HTTP client for 127.0.0.1, tables, number formatting, /proc readings.
import http from 'node:http';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });

/**
 * One request to 127.0.0.1:port. Resolves { status, headers, text, json, ms } for every status (callers check it);
 * rejects only on a network error or after timeoutMs.
 */
export function request(port, method, path, { body, headers = {}, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? null : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const started = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            /* not JSON; callers look at text */
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json, ms: performance.now() - started });
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path} got no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Percentiles of a list of numbers (ms). */
export function summarize(values) {
  if (values.length === 0) return { count: 0, mean: null, p50: null, p95: null, p99: null, max: null };
  const sorted = Float64Array.from(values).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  let sum = 0;
  for (const v of sorted) sum += v;
  const r = (v) => Math.round(v * 1000) / 1000;
  return { count: sorted.length, mean: r(sum / sorted.length), p50: r(at(0.5)), p95: r(at(0.95)), p99: r(at(0.99)), max: r(sorted[sorted.length - 1]) };
}

/** A Markdown table with padded columns (pastes straight into the README). */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map((c) => (c === null || c === undefined ? '—' : String(c))));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length), 3));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((row) => /^[-+]?[\d,.]+( ?(ms|MB|%|\/s|s|×))?$|^—$/.test(String(row[i] ?? '—'))));
  const line = (row) => '| ' + row.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (numeric[i] ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|') + '|';
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}

export const int = (n) => (n === null || n === undefined || Number.isNaN(n) ? null : Math.round(n).toLocaleString('en-US'));
export const ms = (n) => (n === null || n === undefined ? null : `${n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US')} ms`);
export const pct = (n) => (n === null || n === undefined || !Number.isFinite(n) ? null : `${(n * 100).toFixed(1)}%`);
export const mb = (bytes) => (bytes === null || bytes === undefined ? null : `${Math.round(bytes / 1048576).toLocaleString('en-US')} MB`);
export const secs = (s) => (s < 90 ? `${Math.round(s)}s` : `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`);

/** VmRSS and VmHWM (peak RSS) of a process, in bytes, from /proc (Linux); null elsewhere or once it has exited. */
export function readMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** User plus system CPU seconds a process has used (/proc/<pid>/stat, in clock ticks of 1/100 s). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The last `count` lines of a file (reads at most its last max(64 KiB, 512 bytes a line)). */
export function tailFile(path, count = 40) {
  let fd;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, Math.max(65536, count * 512));
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.toString('utf8').split('\n').filter((l) => l.length > 0).slice(-count);
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Calls `onLine` with each complete line a stream writes. */
export function onLines(stream, onLine) {
  let buffer = '';
  stream.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      onLine(line);
    }
  });
}
