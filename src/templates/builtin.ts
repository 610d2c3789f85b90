import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { components } from '../../generated/openapi.js';
import { checkTemplate } from './validate.js';
import { toTemplate } from './resource.js';
import type { TemplateBody } from './shorthand.js';

type Template = components['schemas']['Template'];

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'builtin');
/** Built-in templates do not change at run time; they date from the invoice2data commit they come from. */
const RELEASED = '2026-08-04T00:00:00.000Z';

/** "com.amazon.aws.yml" -> "com_amazon_aws": the part of a built-in id after `tpl_builtin_`. */
export function templateSlug(fileName: string): string {
  return fileName
    .replace(/\.[a-z]+$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
}

export function loadBuiltinTemplates(dir = DIR): Template[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const body = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as TemplateBody;
      // A broken data file is a packaging bug: fail at start-up, not on some later request.
      checkTemplate(body);
      return toTemplate(body, { id: `tpl_builtin_${templateSlug(file)}`, built_in: true, workspace_id: null, created_at: RELEASED, updated_at: RELEASED });
    });
}

let loaded: Template[] | null = null;

/** The templates shipped in `builtin/`, read once. */
export function builtinTemplates(): Template[] {
  loaded ??= loadBuiltinTemplates();
  return loaded;
}
