import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Every JSON log line so far. */
  logs: Record<string, unknown>[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/**
 * Node's arguments to run a TypeScript file through tsx's loader (Node itself rather than the tsx
 * command, which runs the script as a grandchild that a SIGKILL to the child would leave running).
 */
export const fromSources = (file: string) => ['--import', 'tsx', file];

/** A node process run with `args`; resolves once it logs the JSON line whose `msg` is `ready`. */
function startProcess(args: string[], env: Record<string, string>, ready: string, what: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', OCR_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg !== ready) return;
      resolve({
        url: typeof entry.url === 'string' ? entry.url : '',
        child,
        logs,
        exited,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`${what} exited with ${code} before it was ready: ${stderr}`)));
  });
}

/**
 * The server as a child process on a random port, from its sources, or from the build in dist/ as
 * `npm start` runs it; resolves once it logs "docex listening".
 */
export function startServerProcess(env: Record<string, string>, from: 'sources' | 'dist' = 'sources'): Promise<ServerProcess> {
  return startProcess(from === 'dist' ? ['dist/src/main.js'] : fromSources('src/main.ts'), { PORT: '0', ...env }, 'docex listening', 'server');
}

/** `docex worker` as a child process, from its sources; resolves once it logs "docex worker ready". */
export function startWorkerProcess(env: Record<string, string>): Promise<ServerProcess> {
  return startProcess([...fromSources('scripts/docex.ts'), 'worker'], env, 'docex worker ready', 'worker');
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisProcess {
  url: string;
  stop(): Promise<void>;
}

/** A private redis-server (no persistence) on the given port. */
export async function startRedis(port: number): Promise<RedisProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`redis-server exited: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
