// Answers GET and HEAD under /console from the built files: a file by its path, index.html for every other path (the
// console routes in the browser), 404 for a missing asset, and a page saying how to build it when it was not built.
import type { NextFunction, Request, Response } from 'express';
import { CONSOLE_HEADERS, CONSOLE_PATH, ConsoleFile, ConsoleFiles } from './console-files';

const NOT_BUILT =
  'The web console was not built. Run `npm run build` (it builds the API and the console), then restart the service.\n';

export function consoleMiddleware(files: ConsoleFiles | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) return next();
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(name, value);
    if (!files) return send(res, 404, { body: Buffer.from(NOT_BUILT), contentType: 'text/plain; charset=utf-8', cacheControl: 'no-store' });
    const file = files.file(path);
    if (file) return send(res, 200, file);
    // A missing hashed asset is an old page asking for a file of a previous build: index.html would be no answer.
    if (path.startsWith(`${CONSOLE_PATH}/assets/`)) {
      return send(res, 404, { body: Buffer.from('Not found\n'), contentType: 'text/plain; charset=utf-8', cacheControl: 'no-store' });
    }
    send(res, 200, files.index);
  };
}

function send(res: Response, status: number, file: ConsoleFile): void {
  res.status(status);
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', file.cacheControl);
  res.setHeader('Content-Length', String(file.body.length));
  res.end(res.req.method === 'HEAD' ? undefined : file.body);
}
