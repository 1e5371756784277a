// Reads the shell sessions out of the Markdown docs, for docs-sessions.spec.ts. Pure: text in, data out.
import { posix } from 'node:path';

/** A ```sh block whose first line starts with this is shown to users but not run by the docs test. */
export const SKIP_MARKER = '# not run by the docs test:';

/** Fence languages that would be a shell session under another name, and so would escape the test. */
export const OTHER_SHELL_LANGUAGES = ['bash', 'shell', 'console', 'zsh', 'shell-session'];

export interface FencedBlock {
  /** The info string's first word: `sh`, `text`, `json`, or '' for none. */
  language: string;
  /** 1-based line of the block's first content line (the line after the opening fence). */
  line: number;
  /** The text of the nearest heading above the block, without its `#`s; '' above the first heading. */
  heading: string;
  code: string;
}

export interface Session {
  /** Repository-relative path of the Markdown file. */
  file: string;
  line: number;
  heading: string;
  code: string;
  /** Why the test doesn't run it (the text after SKIP_MARKER), or null when it runs. */
  skip: string | null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/;

/** Every fenced code block of a Markdown text, in order. An unclosed block runs to the end of the text. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: FencedBlock[] = [];
  let heading = '';
  let open: { fence: string; language: string; line: number; heading: string; body: string[] } | null = null;
  lines.forEach((text, index) => {
    if (open) {
      const close = FENCE.exec(text);
      if (close && close[1][0] === open.fence[0] && close[1].length >= open.fence.length && close[2] === '') {
        blocks.push({ language: open.language, line: open.line, heading: open.heading, code: open.body.join('\n') });
        open = null;
      } else open.body.push(text);
      return;
    }
    const fence = FENCE.exec(text);
    if (fence) {
      open = { fence: fence[1], language: fence[2].toLowerCase(), line: index + 2, heading, body: [] };
      return;
    }
    const title = HEADING.exec(text);
    if (title) heading = title[1];
  });
  if (open !== null) {
    const last: { language: string; line: number; heading: string; body: string[] } = open;
    blocks.push({ language: last.language, line: last.line, heading: last.heading, code: last.body.join('\n') });
  }
  return blocks;
}

/** The ```sh blocks of one file, each with its skip reason (null: the test runs it). */
export function extractSessions(file: string, markdown: string): Session[] {
  return fencedBlocks(markdown)
    .filter((block) => block.language === 'sh')
    .map((block) => ({ file, line: block.line, heading: block.heading, code: block.code, skip: skipReason(block.code) }));
}

/** The reason after SKIP_MARKER on the block's first non-blank line; '' when the marker gives none; null without it. */
export function skipReason(code: string): string | null {
  const first = code.split('\n').find((line) => line.trim() !== '') ?? '';
  if (!first.trim().startsWith(SKIP_MARKER)) return null;
  return first.trim().slice(SKIP_MARKER.length).trim();
}

/**
 * The Markdown pages under `docs/` that the index links, as repository-relative paths, in the order of their first
 * link. Anchors are dropped; links out of `docs/`, to the index itself, to other file types or to URLs are ignored.
 */
export function linkedPages(indexFile: string, markdown: string): string[] {
  const base = posix.dirname(indexFile);
  const pages: string[] = [];
  for (const block of markdownOutsideCode(markdown)) {
    for (const match of block.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1].split('#')[0];
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || !target.endsWith('.md')) continue;
      const page = posix.normalize(posix.join(base, target));
      if (!page.startsWith('docs/') || page === indexFile || pages.includes(page)) continue;
      pages.push(page);
    }
  }
  return pages;
}

/** The variables the ```sh blocks of the text export (`export A=1 B=2`), as [name, value as written], in order. */
export function exportedVariables(markdown: string): Array<[string, string]> {
  const variables: Array<[string, string]> = [];
  for (const block of fencedBlocks(markdown)) {
    if (block.language !== 'sh') continue;
    for (const line of block.code.split('\n')) {
      const statement = /^\s*export\s+(.*?)(?:\s+#.*)?$/.exec(line);
      if (!statement) continue;
      for (const match of statement[1].matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g)) variables.push([match[1], match[2]]);
    }
  }
  return variables;
}

/** The stretches of the text outside fenced code, so that a link shown inside a code block is not taken as one. */
function markdownOutsideCode(markdown: string): string[] {
  const outside: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const text of markdown.split(/\r?\n/)) {
    const match = FENCE.exec(text);
    if (fence === null && match) {
      outside.push(current.join('\n'));
      current = [];
      fence = match[1];
    } else if (fence !== null) {
      if (match && match[1][0] === fence[0] && match[1].length >= fence.length && match[2] === '') fence = null;
    } else current.push(text);
  }
  outside.push(current.join('\n'));
  return outside;
}
