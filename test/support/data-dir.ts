// What a data dir holds on disk and with which modes, for the checks that every stored file is owner-only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Entry {
  path: string;
  dir: boolean;
  mode: number;
}

/** Every entry under `root`, itself included, with its mode. */
export function walk(root: string): Entry[] {
  const entries: Entry[] = [{ path: root, dir: true, mode: statSync(root).mode & 0o777 }];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    const stat = statSync(path);
    if (stat.isDirectory()) entries.push(...walk(path));
    else entries.push({ path, dir: false, mode: stat.mode & 0o777 });
  }
  return entries;
}

/** Every entry whose mode is not owner-only, as `relative path: mode`, so a failure lists them all. */
export const tooOpen = (root: string) =>
  walk(root)
    .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
    .map((e) => `${relative(root, e.path) || '.'}${e.dir ? '/' : ''}: ${e.mode.toString(8)}`);


/** Every file under `root`. */
export const filesUnder = (root: string): string[] =>
  walk(root)
    .filter((e) => !e.dir)
    .map((e) => e.path);

/**
 * What someone holding the data dir or the logs reads: every file's bytes and the captured log lines. `found` names
 * the first needle seen and where (null when none is); `sees` tells whether some non-secret stored text is there, so a
 * test shows that the scan does read what is stored.
 */
export function scanStored(dataDir: string, logs: readonly string[], needles: ReadonlyArray<readonly [string, Buffer]>) {
  const files = filesUnder(dataDir);
  const haystacks = [...files.map((f) => [f, readFileSync(f)] as const), ['logs', Buffer.from(logs.join(''))] as const];
  let found: string | null = null;
  for (const [where, bytes] of haystacks) {
    const needle = needles.find(([, n]) => bytes.includes(n));
    if (needle) {
      found = `${needle[0]} found in ${where}`;
      break;
    }
  }
  return { files, found, sees: (text: string) => haystacks.some(([, bytes]) => bytes.includes(Buffer.from(text))) };
}
