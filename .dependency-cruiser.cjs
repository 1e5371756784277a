// The layer rules `npm run lint` checks: which layer may import which, and no import circles anywhere. Each rule's
// comment is what a failing lint prints under the offending import, so it says what to do instead.
//
//   apps/{api,cli,projector} → libs/nest → libs/adapters → libs/application → libs/domain
//
// Test code (specs, `*.builders.ts`, `*.arbitrary.ts`, contract suites, everything under test/) has its own, looser
// rules per layer; production code never imports it. Type-only imports count: a type is a dependency too.

const TEST_SUFFIX = '[.](spec|builders|arbitrary|contract)[.][cm]?[jt]s$';
const TEST_FILE = `(^test/|${TEST_SUFFIX})`;
/** The adapters that load a network client (EventStoreDB, Meilisearch); the package root `@vault/adapters` loads none. */
const NETWORK_ADAPTERS = '^libs/adapters/src/(esdb[.]ts|meilisearch[.]ts|event-store/esdb/|read-model/meilisearch/)';
/** The only test helper a domain spec may use; it imports the domain alone (domain-test-helper-stays-pure). */
const DOMAIN_TEST_HELPER = '^test/support/given-when-then[.]ts$';
/** The test helpers a spec under libs/ may use: they open embedded stores or a local server, never the app. */
const LIB_TEST_HELPERS =
  '^test/support/(given-when-then|embedded-stores|intercepted-event-store|byte-offset-event-store|local-http-server)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-only-the-domain',
      severity: 'error',
      comment:
        'libs/domain is functions over data: it imports libs/domain only (no other layer, no NestJS, driver, npm ' +
        'package or node: module). Pass what it needs in as data or a function, or move the code that needs the ' +
        'import to libs/application (a port in libs/application/src/ports/) or libs/adapters.',
      from: { path: '^libs/domain/', pathNot: TEST_FILE },
      to: { pathNot: '^libs/domain/' },
    },
    {
      name: 'domain-tests-stay-pure',
      severity: 'error',
      comment:
        'Domain specs and builders run the domain on plain data: they import libs/domain, fast-check, node: modules ' +
        'and test/support/given-when-then.ts only. A test that needs a store, an adapter or the app belongs in the ' +
        'layer that has it, or under test/.',
      from: { path: `^libs/domain/.*${TEST_SUFFIX}` },
      to: { pathNot: ['^libs/domain/', '^node_modules/fast-check/', DOMAIN_TEST_HELPER], dependencyTypesNot: ['core'] },
    },
    {
      name: 'domain-test-helper-stays-pure',
      severity: 'error',
      comment: 'Domain specs import this helper, so it imports libs/domain only.',
      from: { path: DOMAIN_TEST_HELPER },
      to: { pathNot: '^libs/domain/' },
    },
    {
      name: 'application-imports-only-the-domain',
      severity: 'error',
      comment:
        'libs/application (use cases, projections, ports) imports libs/domain and itself only: no adapter, ' +
        'framework, driver, npm package or node: module. Declare what it needs as a port in ' +
        'libs/application/src/ports/, implement it in libs/adapters; libs/nest wires the two together.',
      from: { path: '^libs/application/', pathNot: TEST_FILE },
      to: { pathNot: '^libs/(domain|application)/' },
    },
    {
      name: 'application-tests-use-embedded-adapters',
      severity: 'error',
      comment:
        'Application specs run on the embedded stores (real SQLite adapters, test/support/embedded-stores.ts), not ' +
        'on mocks of our ports: they import libs/domain, libs/application, libs/adapters, the test helpers for libs/, ' +
        'fast-check and node: modules.',
      from: { path: `^libs/application/.*${TEST_SUFFIX}` },
      to: {
        pathNot: ['^libs/(domain|application|adapters)/', LIB_TEST_HELPERS, '^node_modules/fast-check/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'application-tests-use-no-network-adapter',
      severity: 'error',
      comment:
        'Application specs run on the embedded stores: import the adapters from `@vault/adapters`, not the ' +
        'EventStoreDB or Meilisearch ones, which their contract suites in test/contract check against live servers.',
      from: { path: `^libs/application/.*${TEST_SUFFIX}` },
      to: { path: NETWORK_ADAPTERS },
    },
    {
      name: 'lib-tests-use-lib-test-helpers',
      severity: 'error',
      comment:
        'A spec under libs/ uses only the test helpers that stay below libs/nest (LIB_TEST_HELPERS in ' +
        '.dependency-cruiser.cjs). test/support/test-app.ts and processes.ts start the whole API or the built ' +
        'processes: a test that needs them belongs under test/. A builder of domain values goes beside its aggregate.',
      from: { path: `^libs/.*${TEST_SUFFIX}` },
      to: { path: '^test/', pathNot: LIB_TEST_HELPERS },
    },
    {
      name: 'lib-test-helpers-stay-below-nest',
      severity: 'error',
      comment:
        'Specs under libs/ import this helper, so it imports libs/domain, libs/application, the embedded adapters, ' +
        'drivers and the other helpers for libs/ only: never libs/nest, apps/, a network adapter or another test helper.',
      from: { path: LIB_TEST_HELPERS },
      to: { path: ['^(libs/nest|apps|test)/', NETWORK_ADAPTERS], pathNot: LIB_TEST_HELPERS },
    },
    {
      name: 'adapters-import-no-nest-or-app',
      severity: 'error',
      comment:
        'libs/adapters implements the ports of libs/application with drivers: it imports libs/domain, ' +
        'libs/application and drivers, never libs/nest (the wiring) or apps/. Put the code that needs Nest in libs/nest.',
      from: { path: '^libs/adapters/' },
      to: { path: '^(libs/nest|apps)/' },
    },
    {
      name: 'nest-imports-no-app',
      severity: 'error',
      comment:
        'libs/nest wires libs/domain, libs/application and libs/adapters into the Nest modules every app shares; it ' +
        'never imports apps/. Move what two apps share into libs/nest.',
      from: { path: '^libs/nest/' },
      to: { path: '^apps/' },
    },
    {
      name: 'apps-import-no-other-app',
      severity: 'error',
      comment:
        'apps/api, apps/cli and apps/projector import anything under libs/, but not each other. Move what two apps ' +
        'share into libs/nest, or the layer it belongs to.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'console-imports-only-itself',
      severity: 'error',
      comment:
        'apps/console runs in the browser and talks to the vault only through the public HTTP API (src/api.ts): it ' +
        'imports its own files, preact, and vite and node: modules in its build config, never libs/ or another app.',
      from: { path: '^apps/console/' },
      to: { pathNot: ['^apps/console/', '^node_modules/(preact|vite)/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'production-imports-no-test-code',
      severity: 'error',
      comment:
        'Production code (libs/, apps/) never imports test code: specs, *.builders.ts, *.arbitrary.ts, contract ' +
        'suites or anything under test/. The build leaves those out, so the import would fail at run time.',
      from: { path: '^(libs|apps)/', pathNot: TEST_FILE },
      to: { path: TEST_FILE },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle: these modules import each other (type-only imports count), so none of them can be read, ' +
        'tested or moved without the others, and with value imports one of them runs half-initialised. Move what ' +
        'they share into a module of its own that imports neither.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      comment: 'The import names no file or installed package: a typo, or a path alias that tsconfig.json does not define.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    moduleSystems: ['cjs', 'es6'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
  },
};
