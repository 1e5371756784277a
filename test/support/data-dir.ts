// What a data dir holds on disk and with which modes, for the owner-only checks of API.md ("What may be stored where").
import { readdirSync, statSync } from 'node:fs';
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

