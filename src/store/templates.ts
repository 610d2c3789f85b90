import type { Db } from './db.js';
import type { components } from '../../generated/openapi.js';

export type Template = components['schemas']['Template'];
type TemplateBody = Omit<Template, 'id' | 'object' | 'built_in' | 'workspace_id' | 'created_at' | 'updated_at'>;

interface Row {
  id: string;
  workspace_id: string;
  body: string;
  priority: number;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): Template => ({
  id: r.id,
  object: 'template',
  ...(JSON.parse(r.body) as TemplateBody),
  priority: r.priority,
  built_in: false,
  workspace_id: r.workspace_id,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

function bodyOf(t: TemplateBody): string {
  const { name, description, keywords, exclude_keywords, priority, fields, options } = t;
  return JSON.stringify({ name, description, keywords, exclude_keywords, priority, fields, options });
}

/** Workspace templates; the body is stored as JSON since templates are data validated by the OpenAPI schema. */
export function templatesRepository(db: Db) {
  const table = () => db<Row>('templates');
  return {
    async insert(t: Template & { workspace_id: string }): Promise<void> {
      await table().insert({ id: t.id, workspace_id: t.workspace_id, body: bodyOf(t), priority: t.priority, created_at: t.created_at, updated_at: t.updated_at });
    },
    async replace(t: Template & { workspace_id: string }): Promise<void> {
      await table().where({ id: t.id, workspace_id: t.workspace_id }).update({ body: bodyOf(t), priority: t.priority, updated_at: t.updated_at });
    },
    async get(workspace_id: string, id: string): Promise<Template | undefined> {
      const row = await table().where({ id, workspace_id }).first();
      return row && fromRow(row);
    },
    /** Whatever its workspace: for the administration command, which works on the whole database. */
    async find(id: string): Promise<Template | undefined> {
      const row = await table().where({ id }).first();
      return row && fromRow(row);
    },
    async listAll(workspace_id: string): Promise<Template[]> {
      return (await table().where({ workspace_id }).orderBy('id', 'desc')).map(fromRow);
    },
    async delete(workspace_id: string, id: string): Promise<boolean> {
      return (await table().where({ id, workspace_id }).delete()) > 0;
    },
  };
}
