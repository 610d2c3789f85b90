import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const BIN = path.resolve('bin/docex.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as a user runs it, in its own process; stdout and stderr are pipes, not a terminal. */
export function docex(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
