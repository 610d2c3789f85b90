import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docex } from './run.js';

/** An older invoice2data template: every field a bare regex, a float type through the shorthand's absence. */
const SHORTHAND = `issuer: Shorthand Supplies
keywords:
  - Shorthand Supplies
fields:
  invoice_number: 'Invoice no\\.\\s+(\\S+)'
  amount: 'Total\\s+([\\d.,]+)'
  date:
    - 'Date:\\s+(\\S+)'
    - 'Dated\\s+(\\S+)'
options:
  currency: EUR
  decimal_separator: ','
`;

describe('docex template import / export', () => {
  let dir: string;
  let env: Record<string, string>;
  let workspace: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-cli-tpl-'));
    env = { DATABASE_URL: `sqlite:${path.join(dir, 'docex.sqlite')}`, LOG_LEVEL: 'silent' };
    fs.writeFileSync(path.join(dir, 'shorthand.yml'), SHORTHAND);
    fs.writeFileSync(path.join(dir, 'broken.yml'), 'issuer: [unclosed');
    fs.writeFileSync(path.join(dir, 'nokeywords.yml'), 'issuer: Nobody\nfields:\n  amount: Total (\\d+)\n');
    workspace = JSON.parse((await docex(['workspace', 'create', '--name', 'acme', '--plan', 'pro'], env)).stdout).id;
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports an invoice2data template into the only workspace, with bare patterns written out as rules', async () => {
    const run = await docex(['template', 'import', path.join(dir, 'shorthand.yml')], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const template = JSON.parse(run.stdout);
    expect(template).toMatchObject({ object: 'template', name: 'Shorthand Supplies', workspace_id: workspace, built_in: false, keywords: ['Shorthand Supplies'] });
    expect(template.id).toMatch(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(template.fields.invoice_number).toMatchObject({ parser: 'regex', regex: 'Invoice no\\.\\s+(\\S+)' });
    expect(template.fields.total_amount).toMatchObject({ parser: 'regex', regex: 'Total\\s+([\\d.,]+)' });
    expect(template.fields.invoice_date).toMatchObject({ parser: 'regex', regex: ['Date:\\s+(\\S+)', 'Dated\\s+(\\S+)'] });
    expect(template.options).toMatchObject({ currency: 'EUR', decimal_separator: ',' });

    const exported = await docex(['template', 'export', template.id], env);
    expect(exported.code).toBe(0);
    expect(exported.stdout.split('\n')[0]).toBe(`# ${template.id} (workspace ${workspace}), updated ${template.updated_at}`);
    const { id: _id, object: _o, built_in: _b, workspace_id: _w, created_at: _c, updated_at: _u, ...body } = template;
    expect(parse(exported.stdout)).toEqual(body);
  });

  it('exports a built-in template', async () => {
    const run = await docex(['template', 'export', 'tpl_builtin_com_oyo_invoice'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^# tpl_builtin_com_oyo_invoice \(built-in\)/);
    expect(parse(run.stdout).keywords).toContain('OYO');
  });

  it('needs --workspace once the database holds several, and refuses an unknown one', async () => {
    const other = JSON.parse((await docex(['workspace', 'create', '--name', 'globex', '--plan', 'free'], env)).stdout).id;
    const ambiguous = await docex(['template', 'import', path.join(dir, 'shorthand.yml')], env);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^docex: --workspace is required: the database has 2 workspaces/);
    const chosen = await docex(['template', 'import', path.join(dir, 'shorthand.yml'), '--workspace', other], env);
    expect(chosen.code).toBe(0);
    expect(JSON.parse(chosen.stdout).workspace_id).toBe(other);
    const unknown = await docex(['template', 'import', path.join(dir, 'shorthand.yml'), '--workspace', 'ws_01JDQ7T1R2S3T4V5W6X7Y8Z9A0'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('docex: no such workspace ws_01JDQ7T1R2S3T4V5W6X7Y8Z9A0\n');
  });

  it('exits 1 on a file it cannot convert or a template that does not exist, 2 on wrong usage', async () => {
    const broken = await docex(['template', 'import', path.join(dir, 'broken.yml'), '--workspace', workspace], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/broken\.yml is not YAML or JSON/);
    const nokeywords = await docex(['template', 'import', path.join(dir, 'nokeywords.yml'), '--workspace', workspace], env);
    expect(nokeywords.code).toBe(1);
    expect(nokeywords.stderr).toContain('nokeywords.yml could not be converted: no keywords');
    const missing = await docex(['template', 'export', 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('docex: no such template tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0\n');
    for (const args of [['template', 'import'], ['template', 'import', path.join(dir, 'absent.yml')], ['template', 'rename', 'x'], ['template', 'export', 'a', 'b']]) {
      const run = await docex(args, env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^docex: .+\n\nUsage: docex/);
    }
  });
});
