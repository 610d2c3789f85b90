import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { saveNewTemplate } from '../../src/services/templates.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { Template } from '../../src/store/templates.js';
import { builtinTemplates } from '../../src/templates/builtin.js';
import { convertInvoice2data, parseInvoice2data } from '../../src/templates/invoice2data.js';
import { UsageError } from './usage.js';

const OPTIONS = { workspace: { type: 'string' } } as const;

/** The workspace named, or the database's only one. */
async function workspaceFor(store: Store, id: string | undefined): Promise<string> {
  if (id) {
    const ws = await store.workspaces.get(id);
    if (!ws || ws.deleted_at) throw new Error(`no such workspace ${id}`);
    return id;
  }
  const all = await store.workspaces.list();
  if (all.length !== 1) throw new UsageError(`--workspace is required: the database has ${all.length} workspaces (docex workspace list)`);
  return all[0]!.id;
}

/** Converts an invoice2data template file and stores it; parts docex cannot express are reported on `warn`. */
async function importTemplate(store: Store, file: string, workspace: string | undefined, warn: (line: string) => void): Promise<Template> {
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  let raw: unknown;
  try {
    raw = parseInvoice2data(text);
  } catch (err) {
    throw new Error(`${file} is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const result = convertInvoice2data(raw, path.basename(file));
  if (!result.template) throw new Error(`${file} could not be converted: ${result.error}`);
  for (const part of result.dropped) warn(`converted without ${part}`);
  return saveNewTemplate(store, await workspaceFor(store, workspace), result.template);
}

/** A template as YAML: the body `POST /v1/templates` takes, under a comment saying where it came from. */
function asYaml(t: Template): string {
  const { name, description, keywords, exclude_keywords, priority, fields, options } = t;
  const origin = t.built_in ? 'built-in' : `workspace ${t.workspace_id}`;
  return `# ${t.id} (${origin}), updated ${t.updated_at}\n${stringify({ name, description, keywords, exclude_keywords, priority, fields, options }, { lineWidth: 0 })}`;
}

async function exportTemplate(store: Store, id: string): Promise<string> {
  const template = builtinTemplates().find((t) => t.id === id) ?? (await store.templates.find(id));
  if (!template) throw new Error(`no such template ${id}`);
  return asYaml(template);
}

/**
 * `docex template import FILE [--workspace ws_...]` and `docex template export tpl_...`, straight on
 * the database in DATABASE_URL, as the workspace and key commands. Returns what to print on stdout.
 */
export async function templates(action: string, args: string[], warn: (line: string) => void): Promise<string> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (action !== 'import' && action !== 'export') throw new UsageError(`unknown command: template ${action}`);
  if (positionals.length !== 1) throw new UsageError(action === 'import' ? 'template import takes exactly one FILE' : 'template export takes exactly one template id');
  const store = await openStore(loadConfig().databaseUrl);
  try {
    if (action === 'export') return await exportTemplate(store, positionals[0]!);
    return `${JSON.stringify(await importTemplate(store, positionals[0]!, values.workspace, warn), null, 2)}\n`;
  } finally {
    await store.close();
  }
}
