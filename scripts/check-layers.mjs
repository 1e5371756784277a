#!/usr/bin/env node
// Dependency check: libs/domain stays framework-free and I/O-free; libs/application imports no adapter, framework or driver
// (its test files may import the embedded adapters and node: modules, see allowInTests).
// Reads every import with the TypeScript compiler's own pre-processor, so comments and strings cannot fool it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;

const io = /^(node:)?(fs|fs\/promises|net|http|https|child_process|dgram|tls|worker_threads|cluster)$/;
const drivers = /^(@nestjs\/|@eventstore\/|@kurrent\/|meilisearch|better-sqlite3|isolated-vm|liquidjs|express|class-validator|class-transformer)/;

const layers = [
  {
    dir: 'libs/domain/src',
    forbidden: (spec) =>
      drivers.test(spec) || io.test(spec) || spec.startsWith('node:') || /^@vault\/(application|adapters|nest)/.test(spec),
    why: 'libs/domain is functions over data: no NestJS, event-store, search or database client, no node: modules, no outer layer',
    allowInTests: [/^fast-check(\/|$)/, /^node:/],
  },
  {
    dir: 'libs/application',
    forbidden: (spec) => drivers.test(spec) || io.test(spec) || /^@vault\/(adapters|nest)/.test(spec),
    why: 'libs/application owns the ports: no framework, driver or adapter imports',
    // Its specs run the use cases, the command runner and the projector on the embedded stores (real SQLite adapters,
    // temporary data dirs), not on mocks of our own ports: test files only, production files stay adapter-free.
    // The package root only: its optional subpaths (@vault/adapters/esdb, /meilisearch) load network clients.
    allowInTests: [/^@vault\/adapters$/, /^node:/],
  },
];

const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });

const isTestFile = (path) => /\.(spec|test)\.ts$|\.arbitrary\.ts$|\/testing\//.test(path);

let violations = 0;
for (const layer of layers) {
  for (const file of files(join(root, layer.dir))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!layer.forbidden(spec)) continue;
      if (isTestFile(file) && layer.allowInTests.some((allowed) => allowed.test(spec))) continue;
      if (isTestFile(file) && !drivers.test(spec) && !/^@vault\//.test(spec)) continue;
      violations++;
      console.error(`${relative(root, file)}: imports "${spec}" (${layer.why})`);
    }
  }
}

if (violations > 0) {
  console.error(`\nLayer check failed: ${violations} forbidden import(s).`);
  process.exit(1);
}
console.log('Layer check passed: libs/domain and libs/application import no framework, driver or I/O module.');
