import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fromSources } from '../scale/processes.js';

/** The CLI from its TypeScript sources, so that the tests never run a stale build. */
const SOURCES = fromSources(path.resolve('scripts/docex.ts'));
/** The CLI as installed: bin/docex.js, which runs the build in dist/. */
export const INSTALLED = [path.resolve('bin/docex.js')];

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as a user runs it, in its own process; stdout and stderr are pipes, not a terminal. */
export function docex(args: string[], env: Record<string, string>, command = SOURCES): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...command, ...args], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
