// What each generated application legitimately knows: what it sent, and what its entitlements showed it at some
// point (knowledge accrues and is never lost, whatever its rules become). Kept as folded 5-character windows
// (windows.ts), the unit a response is searched in.
import { alnum, windowsOf } from './windows';
import { AppSpec, currentVersion, DataVersion, Level, LEVEL, levelFor, TokenModel } from './model';

export interface AppModel {
  index: number;
  /** Its rules and permissions now: a rule change by the management key replaces them. */
  spec: AppSpec;
  id: string;
  key: string;
  /** Whole strings it knows (data it sent, plaintexts and masks it was entitled to): exact matches. */
  known: Set<string>;
  /** The windows of what it knows. */
  windows: Set<string>;
  /** The windows of its search guesses: known to it, but a guess entitles it to no token view. */
  guessWindows: Set<string>;
}

export const newAppModel = (index: number, spec: AppSpec, id: string, key: string): AppModel => ({
  index,
  spec,
  id,
  key,
  known: new Set(),
  windows: new Set(),
  guessWindows: new Set(),
});

/** Learns a string: its windows and those of its letters-and-digits form. */
export const learnString = (app: AppModel, text: string, guess = false): void => {
  const into = guess ? app.guessWindows : app.windows;
  if (!guess) app.known.add(text);
  for (const w of windowsOf(text)) into.add(w);
  for (const w of windowsOf(alnum(text))) into.add(w);
};

/** Remembers what an application sent: every string in it, and every value as a whole (a token's data is one). */
export const learnFromRequest = (app: AppModel, body: unknown, guess = false): void => {
  const walk = (value: unknown) => {
    if (value === undefined) return;
    if (!guess) app.known.add(typeof value === 'string' ? value : JSON.stringify(value));
    if (typeof value === 'string') learnString(app, value, guess);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(body);
};

/** What the application is entitled to see of the token right now. */
export const currentLevel = (app: AppModel, token: TokenModel): Level => {
  if (!token.alive) return 0;
  const level = levelFor(app.spec, token.containers);
  const cap = token.caps.get(app.index);
  return cap === undefined ? level : (Math.min(cap, level) as Level);
};

/** Entitlement accrues over time: whatever an application could see at some point, it knows from then on. */
export const accrue = (apps: readonly AppModel[], tokens: readonly TokenModel[]): void => {
  for (const token of tokens) {
    if (!token.alive) continue;
    for (const app of apps) {
      const level = currentLevel(app, token);
      if (level >= LEVEL.reveal) {
        const version = currentVersion(token);
        app.known.add(version.plaintext);
        for (const w of version.windows) app.windows.add(w);
      }
      if (level >= LEVEL.mask && token.masked !== null && !token.maskTainted) learnString(app, token.masked);
    }
  }
};

const knownWindow = (app: AppModel, w: string, withGuesses: boolean) => app.windows.has(w) || (withGuesses && app.guessWindows.has(w));

/** Whether the application knows this data version's plaintext: then everything derived from it is no news to it. */
export const knowsPlaintext = (app: AppModel, version: DataVersion): boolean => {
  if (app.known.has(version.plaintext)) return true;
  if (version.windows.size === 0) return false;
  for (const w of version.windows) if (!knownWindow(app, w, true)) return false;
  return true;
};

/** Whether the application knows a string it was shown as a token's data (guesses do not count). */
export const knowsShown = (app: AppModel, shown: string): boolean => {
  if (app.known.has(shown)) return true;
  const windows = windowsOf(shown);
  return windows.length > 0 && windows.every((w) => knownWindow(app, w, false));
};

/** Whether a window is no news to the application. */
export const knowsWindow = (app: AppModel, w: string): boolean => knownWindow(app, w, true);
