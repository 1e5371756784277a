// The CLI's actions in-process, on a temporary data dir: failures say "vault: <reason>", and a validation error of the
// domain about what the operator typed is a usage error naming the option.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { actions } from './actions';
import { EXIT, UsageError } from './program';

describe('vault actions', () => {
  let dir: string;
  let stderr: string;
  const saved = { dataDir: process.env.VAULT_DATA_DIR, write: process.stderr.write.bind(process.stderr) };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-cli-actions-'));
    process.env.VAULT_DATA_DIR = dir;
    stderr = '';
    process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = saved.write;
    if (saved.dataDir === undefined) delete process.env.VAULT_DATA_DIR;
    else process.env.VAULT_DATA_DIR = saved.dataDir;
    rmSync(dir, { recursive: true, force: true });
  });

  it('tenant delete of an unknown id prints "vault: No tenant …" and exits 1', async () => {
    const id = randomUUID();
    expect(await actions.tenantDelete(id)).toBe(EXIT.failed);
    expect(stderr).toMatch(new RegExp(`^vault: No tenant ${id} `, 'm'));
  });

  it('tenant create with a name the domain refuses is a usage error naming --name and the field', async () => {
    const refused = actions.tenantCreate(' '.repeat(3));
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow('--name: name must be 1 to 200 characters long');
  });
});
