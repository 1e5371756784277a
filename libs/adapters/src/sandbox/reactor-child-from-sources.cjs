// Preloaded (`node -r`) into a reactor child process when the runtime itself runs from the TypeScript sources, as under
// Jest: compiles .ts files with swc as jest.config.js does and resolves the @vault/* aliases. The built app never uses it.
'use strict';
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '..', '..', '..', '..');
const ALIAS = /^@vault\/(domain|application|adapters|nest)(?:\/(.*))?$/;

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = ALIAS.exec(request);
  const resolved = alias ? join(root, 'libs', alias[1], 'src', alias[2] ?? 'index.ts') : request;
  return resolveFilename.call(this, resolved, ...rest);
};

Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
