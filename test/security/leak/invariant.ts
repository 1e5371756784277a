// The leak property's invariant, on one response to one application: no window of a token's data or evaluated mask
// that the application does not know (windows.ts, knowledge.ts), and no token view whose `data` shows more than the
// application's entitlement before the request.
import { AppModel, knowsPlaintext, knowsShown, knowsWindow } from './knowledge';
import { currentVersion, Level, LEVEL, LEVEL_NAME, secretSources, TokenModel } from './model';
import { ALL_DIGITS, DIGIT_WINDOW, digitWindowsOf, findWindow, maskWindowsOf, searchedTexts, type Response } from './windows';

type TokenView = Record<string, unknown> & { id: string };

/** The token views in a response, wherever they sit (a token, a search page, a tokenize answer, a reactor's tokens). */
export const viewsIn = (body: unknown, out: TokenView[] = []): TokenView[] => {
  if (Array.isArray(body)) body.forEach((item) => viewsIn(item, out));
  else if (body && typeof body === 'object') {
    const object = body as Record<string, unknown>;
    if (typeof object.id === 'string' && Array.isArray(object.containers) && typeof object.type === 'string') out.push(object as TokenView);
    else Object.values(object).forEach((value) => viewsIn(value, out));
  }
  return out;
};

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);

/**
 * What the response leaks to the application, or null. `levels` are its entitlements before the request (by token
 * id); `supplied` are tokens whose new data it sent in this very request (their views may show that data).
 */
export const leakIn = (
  tokens: readonly TokenModel[],
  app: AppModel,
  response: Response,
  levels: ReadonlyMap<string, Level>,
  supplied: ReadonlySet<string>,
  thorough = false,
): string | null => {
  const label = (token: TokenModel) => `T${tokens.indexOf(token)}`;
  const who = app.index === -2 ? 'an anonymous caller' : app.index < 0 ? 'the management key' : `app${app.index}`;
  const index = new Map<string, { token: TokenModel; what: string }>();
  /** `thorough`: the windows of runs of digits, DIGIT_WINDOW long (windows.ts). */
  const digitIndex = new Map<string, { token: TokenModel; what: string }>();
  for (const token of tokens) {
    token.versions.forEach((version, v) => {
      // Data the caller knows (it sent it, or was entitled to see it) yields nothing new, whatever is derived from it.
      if (knowsPlaintext(app, version)) return;
      for (const w of version.windows) {
        if (thorough && ALL_DIGITS.test(w)) continue;
        if (!knowsWindow(app, w)) index.set(w, { token, what: `data (version ${v})` });
      }
      if (thorough) {
        for (const w of secretSources(version.data).flatMap(digitWindowsOf)) {
          const known = Array.from({ length: DIGIT_WINDOW - 4 }, (_, i) => w.slice(i, i + 5)).every((part) => knowsWindow(app, part));
          if (!known) digitIndex.set(w, { token, what: `data (version ${v})` });
        }
      }
      for (const masked of version.masks) {
        for (const w of maskWindowsOf(masked)) {
          if (!index.has(w) && !knowsWindow(app, w)) index.set(w, { token, what: `evaluated mask ${JSON.stringify(masked)} (version ${v})` });
        }
      }
    });
  }
  const texts = searchedTexts(response, thorough);
  const found = findWindow(texts, index) ?? findWindow(texts, digitIndex, DIGIT_WINDOW);
  if (found) {
    const { token, what } = found.what;
    return (
      `${who} (entitled to ${LEVEL_NAME[levels.get(token.id) ?? 0]} on ${label(token)}) received "${found.window}" (folded), ` +
      `a window of ${label(token)}'s ${what}, in …${found.context}…; whole response: ${clip(response.text, 2000)}`
    );
  }
  for (const view of viewsIn(response.body)) {
    const token = tokens.find((t) => t.id === view.id.toLowerCase());
    if (!token || !('data' in view) || supplied.has(token.id)) continue;
    const level = levels.get(token.id) ?? 0;
    const shown = typeof view.data === 'string' ? view.data : JSON.stringify(view.data);
    const allowed =
      level === LEVEL.reveal ||
      currentVersion(token).suppliedBy.has(app.index) ||
      (level >= LEVEL.mask && view.data === token.masked && !token.maskTainted) ||
      knowsShown(app, shown);
    if (!allowed) {
      return (
        `${who} is entitled to ${LEVEL_NAME[level]} on ${label(token)} but the response shows its data as ${clip(shown, 300)} ` +
        `(evaluated mask: ${JSON.stringify(token.masked)}): ${clip(response.text, 2000)}`
      );
    }
  }
  return null;
};
