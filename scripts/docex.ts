import { admin } from './cli/admin.js';
import { extract } from './cli/extract.js';
import { templates } from './cli/templates.js';
import { worker } from './cli/worker.js';
import { USAGE, UsageError } from './cli/usage.js';

async function main(argv: string[]): Promise<number> {
  const [command, action, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  try {
    if (command === 'workspace' || command === 'key') {
      const result = await admin(command, action ?? '', rest);
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }
    if (command === 'template') {
      process.stdout.write(await templates(action ?? '', rest, (line) => process.stderr.write(`docex: ${line}\n`)));
      return 0;
    }
    if (command === 'extract') return await extract(argv.slice(1));
    if (command === 'worker') return await worker(argv.slice(1));
    throw new UsageError(`unknown command: ${command}`);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`docex: ${(err as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`docex: ${(err as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
