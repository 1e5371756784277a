// The operator's `vault formulas import` (the built CLI, as a process) beside a running API on the same data dir: an
// import that would break reactors fails for that file with the 409's message and the reactors it names, imports the
// other files, and exits 1; once the reactors are gone the same file imports. Needs `npm run build` (dist/).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/processes';
import { asKey, BOOTSTRAP_KEY, startTestApp, TestApp } from '../support/test-app';

const OFFICIAL_DIR = join(__dirname, '../../formulas/official');
const MASK_EMAIL = JSON.parse(readFileSync(join(OFFICIAL_DIR, 'mask-email.json'), 'utf8'));
const TOKENIZE_PAYLOAD = JSON.parse(readFileSync(join(OFFICIAL_DIR, 'tokenize-payload.json'), 'utf8'));

describe('vault formulas import beside reactors', () => {
  let test: TestApp;
  let dir: string;
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const importDir = () => runCli(['formulas', 'import', dir], { VAULT_DATA_DIR: test.dataDir, VAULT_LOG_LEVEL: 'error' });
  const writeFormulas = (maskEmail: object) => {
    writeFileSync(join(dir, 'a-mask-email.json'), JSON.stringify(maskEmail));
    writeFileSync(join(dir, 'b-tokenize-payload.json'), JSON.stringify(TOKENIZE_PAYLOAD));
  };

  beforeAll(async () => {
    test = await startTestApp();
    dir = join(test.dataDir, 'formulas-to-import');
    mkdirSync(dir);
  });
  afterAll(() => test.close());

  it('refuses the file whose configuration change would break a reactor, naming it, and imports it once the reactor is gone', async () => {
    writeFormulas(MASK_EMAIL);
    const first = await importDir();
    expect(first.code).toBe(0);
    const reactor = await admin().post('/reactors', {
      name: 'Support masker',
      formula: { id: MASK_EMAIL.id },
      configuration: { mask_character: '*', reveal_domain: true },
    });
    expect(reactor.status).toBe(201);

    const changed = { ...MASK_EMAIL, configuration: [...MASK_EMAIL.configuration, { name: 'keep_first', type: 'number' }] };
    writeFormulas(changed);
    const refused = await importDir();
    expect(refused.code).toBe(1);
    const report = JSON.parse(refused.stdout);
    expect(report.failed).toEqual([
      {
        file: 'a-mask-email.json',
        error: expect.stringContaining(`Support masker (${reactor.body.id})`),
        errors: { reactors: [`Support masker (${reactor.body.id})`] },
      },
    ]);
    expect(report.imported).toEqual([expect.objectContaining({ file: 'b-tokenize-payload.json', result: 'unchanged' })]);
    expect(refused.stderr).toMatch(/^a-mask-email\.json: FAILED /m);
    // The formula is as it was.
    expect((await admin().get(`/reactor-formulas/${MASK_EMAIL.id}`)).body.configuration).toHaveLength(MASK_EMAIL.configuration.length);

    expect((await admin().delete(`/reactors/${reactor.body.id}`)).status).toBe(204);
    const accepted = await importDir();
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.stdout).imported).toEqual(
      expect.arrayContaining([expect.objectContaining({ file: 'a-mask-email.json', result: 'updated' })]),
    );
  });
});
