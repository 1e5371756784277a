// Runs the built apps (dist/) as separate processes, as a user would: the API, and the vault CLI.
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const NODE_ARGS = ['--no-node-snapshot'];

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, [...NODE_ARGS, join(root, 'dist/apps/api/src/main.js')], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API did not start:\n${output}`)), 30000);
    const check = () => {
      const match = /^Vault API listening on http:\/\/localhost:(\d+) /m.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`API exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, join(root, 'dist/apps/cli/src/main.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
