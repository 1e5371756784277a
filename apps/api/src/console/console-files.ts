// The console's built files (`vite build` → dist/console), read once at start-up and answered from memory with the
// headers every console answer carries. Only files that exist are answered: a path is a key of the map, never joined
// onto the file system, so no request can reach outside the folder.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

/** Where the console is served; its assets are under `${CONSOLE_PATH}/assets/`. */
export const CONSOLE_PATH = '/console';

/**
 * No inline script or style, nothing from another origin, no plugin, no `<base>`, forms only to us, never in a frame.
 * `img-src data:` is for formula icons, which are data URLs. Trusted Types leave no HTML sink usable from script.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const CONSOLE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Hashed file names never change content: cached for a year. Anything else is revalidated on every load. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

export interface ConsoleFile {
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

export interface ConsoleFiles {
  /** The file at a URL path under CONSOLE_PATH (`/console/assets/index-1a2b.js`), if there is one. */
  file(urlPath: string): ConsoleFile | undefined;
  /** index.html, answered for every other path under CONSOLE_PATH (the console's own pages, deep links). */
  readonly index: ConsoleFile;
}

/** The built console in `dir`, or undefined when it was not built (no index.html). */
export function loadConsoleFiles(dir: string): ConsoleFiles | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const files = new Map<string, ConsoleFile>();
  for (const path of walk(dir)) {
    const urlPath = `${CONSOLE_PATH}/${relative(dir, path).split(sep).join('/')}`;
    const hashed = urlPath.startsWith(`${CONSOLE_PATH}/assets/`);
    files.set(urlPath, {
      body: readFileSync(path),
      contentType: TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      cacheControl: hashed ? IMMUTABLE : REVALIDATE,
    });
  }
  const index = files.get(`${CONSOLE_PATH}/index.html`)!;
  return { file: (urlPath) => files.get(urlPath), index };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/**
 * dist/console: from the compiled module (dist/apps/api/src/console) it is four folders up; from the sources (tests run
 * them under Jest) it is the repository's dist/console.
 */
export function defaultConsoleDir(): string {
  const compiled = join(__dirname, '..', '..', '..', '..', 'console');
  return existsSync(compiled) ? compiled : join(__dirname, '..', '..', '..', '..', 'dist', 'console');
}
