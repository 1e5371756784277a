// The framework floor: a minimal NestJS application on @nestjs/platform-express, the repo's installed
// versions, with one POST route that returns a constant JSON body (the baseline's), Nest's defaults otherwise (its
// JSON body parser included). What any route of the service costs at the least on this adapter; the bench loads it
// exactly like baseline-server.mjs. Plain ESM without a build step, so the decorators are applied as functions.
// Prints {"msg":"framework floor listening","port":N,"versions":{…}} on stdout once listening on 127.0.0.1 (PORT,
// default 0 = any free port).
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';

const BODY = { pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 }, data: [] };

class FloorController {
  answer() {
    return BODY;
  }
}
const decorate = (proto, name, ...decorators) => {
  const descriptor = Object.getOwnPropertyDescriptor(proto, name);
  for (const d of decorators) d(proto, name, descriptor);
};
// The baseline answers 200; Nest's POST default is 201.
decorate(FloorController.prototype, 'answer', Post(), HttpCode(200));
Controller()(FloorController);

class FloorModule {}
Module({ controllers: [FloorController] })(FloorModule);

const require = createRequire(import.meta.url);
const version = (name) => {
  try {
    return require(`${name}/package.json`).version;
  } catch {
    return null;
  }
};

const app = await NestFactory.create(FloorModule, new ExpressAdapter(), { logger: ['error', 'warn'] });
const server = app.getHttpServer();
server.keepAliveTimeout = 60_000;
await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
const versions = Object.fromEntries(['@nestjs/core', '@nestjs/common', '@nestjs/platform-express', 'express'].map((n) => [n, version(n)]));
process.stdout.write(JSON.stringify({ msg: 'framework floor listening', port: server.address().port, versions }) + '\n');
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.closeAllConnections?.();
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
