// The web console: static files under /console, and GET / sends a browser there. It adds no API endpoint: the console
// is a client of the public API like any other, with the key the user signs in with.
import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { CONSOLE_PATH, defaultConsoleDir, loadConsoleFiles } from './console-files';
import { consoleMiddleware } from './console.middleware';

@Module({})
export class ConsoleModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    const files = loadConsoleFiles(defaultConsoleDir());
    consumer
      .apply(consoleMiddleware(files))
      .forRoutes({ path: CONSOLE_PATH, method: RequestMethod.GET }, { path: `${CONSOLE_PATH}/*path`, method: RequestMethod.GET });
  }
}
