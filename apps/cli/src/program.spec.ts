// The CLI's usage checks, in-process with stand-in actions (test/process/cli.spec.ts runs the built CLI).
import { CliActions, EXIT, runProgram } from './program';

const fakeActions = (calls: string[]): CliActions => ({
  tenantCreate: async (name) => (calls.push(`create ${name}`), EXIT.ok),
  tenantDelete: async (id) => (calls.push(`delete ${id}`), EXIT.ok),
  projectionsRebuild: async () => EXIT.ok,
  formulasImport: async () => EXIT.ok,
  tenantList: async () => EXIT.ok,
  keysRotateMaster: async () => EXIT.ok,
  backup: async (out) => (calls.push(`backup ${out}`), EXIT.ok),
  restore: async (from) => (calls.push(`restore ${from}`), EXIT.ok),
});

/** Runs `argv`, keeping what commander writes to stderr. */
async function run(argv: string[]): Promise<{ code: number; stderr: string; calls: string[] }> {
  const calls: string[] = [];
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await runProgram(argv, async () => fakeActions(calls));
    return { code, stderr, calls };
  } finally {
    process.stderr.write = write;
  }
}

describe('vault tenant create --name', () => {
  it('counts the name in characters: 200 emoji are a name', async () => {
    const result = await run(['tenant', 'create', '--name', '🔑'.repeat(200)]);
    expect(result).toMatchObject({ code: EXIT.ok, calls: [`create ${'🔑'.repeat(200)}`] });
  });

  it.each([['n'.repeat(201)], ['🔑'.repeat(201)]])('refuses a name of 201 characters as a usage error naming --name', async (name) => {
    const result = await run(['tenant', 'create', '--name', name]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.calls).toEqual([]);
    expect(result.stderr).toMatch(/^error: tenant create needs a --name <name> of 1 to 200 characters/);
    expect(result.stderr).not.toContain(name);
  });
});
