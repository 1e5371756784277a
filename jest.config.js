// NestJS 12 and the meilisearch client ship ESM only; @swc/jest turns them (and our TypeScript) into CommonJS for Jest.
const esmPackages = [
  '@nestjs', 'meilisearch', 'file-type', 'strtok3', 'token-types', 'peek-readable', '@tokenizer',
  'uint8array-extras', '@borewit',
];

const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
    module: { type: 'commonjs' },
  },
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleNameMapper: {
    '^@vault/(domain|application|adapters|nest)$': '<rootDir>/libs/$1/src/index.ts',
    '^@vault/(domain|application|adapters|nest)/(.*)$': '<rootDir>/libs/$1/src/$2',
    '^@vault/test-support/(.*)$': '<rootDir>/test/support/$1',
  },
  testTimeout: 30000,
};
