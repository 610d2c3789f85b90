import type { components } from '../../generated/openapi.js';
import { newId } from '../ids.js';
import { notFound } from '../errors.js';
import type { Store } from '../store/index.js';
import type { Template } from '../store/templates.js';
import { validateTemplate } from '../templates/validate.js';
import { builtinTemplates } from '../templates/builtin.js';
import { toTemplate } from '../templates/resource.js';
import { expandFields, expandTemplate } from '../templates/shorthand.js';
import { mergeFields } from '../templates/engine.js';
import type { TemplateRunner } from '../templates/runner.js';
import type { PipelineResult, TemplateApplier } from './extractions.js';

type TemplateCreate = components['schemas']['TemplateCreate'];
type TemplateUpdate = components['schemas']['TemplateUpdate'];

const isBuiltinId = (id: string) => id.startsWith('tpl_builtin_');

/** Checks a new template (bare patterns written out as rules) and stores it in the workspace. */
export async function saveNewTemplate(store: Store, workspaceId: string, input: TemplateCreate): Promise<Template> {
  const body = expandTemplate(input);
  validateTemplate(body);
  const now = new Date().toISOString();
  const template = toTemplate(body, { id: newId('tpl'), built_in: false, workspace_id: workspaceId, created_at: now, updated_at: now });
  await store.templates.insert({ ...template, workspace_id: workspaceId });
  return template;
}

function aggregateConfidence(fields: { confidence: number }[], fallback: number): number {
  if (fields.length === 0) return fallback;
  return fields.reduce((sum, f) => sum + f.confidence, 0) / fields.length;
}

/** Workspace templates plus the read-only built-in ones, and their use in extractions (matched and applied by `runner`). */
export function templateService(store: Store, runner: TemplateRunner) {
  const builtins = builtinTemplates();
  const byId = new Map(builtins.map((t) => [t.id, t]));

  async function get(workspaceId: string, id: string): Promise<Template> {
    const template = isBuiltinId(id) ? byId.get(id) : await store.templates.get(workspaceId, id);
    if (!template) throw notFound(`No such template ${id}.`);
    return template;
  }

  async function all(workspaceId: string): Promise<Template[]> {
    return [...(await store.templates.listAll(workspaceId)), ...builtins];
  }

  const applier: TemplateApplier = {
    async find(workspaceId, id) {
      return isBuiltinId(id) ? byId.get(id) : await store.templates.get(workspaceId, id);
    },
    async apply(workspaceId, templateId, result: PipelineResult) {
      const candidates = templateId ? [await get(workspaceId, templateId)] : await all(workspaceId);
      const { template, fields: found } = await runner.run(candidates, result.document, { select: !templateId, pages: result.pages });
      if (!template) return { templateId: null, fields: result.fields, confidence: result.confidence };
      const fields = mergeFields(found, result.fields);
      return { templateId: template.id, fields, confidence: aggregateConfidence(fields, result.confidence) };
    },
  };

  return {
    applier,
    get,
    async list(workspaceId: string, limit: number, startingAfter?: string) {
      const templates = await all(workspaceId);
      const start = startingAfter ? templates.findIndex((t) => t.id === startingAfter) + 1 : 0;
      const page = templates.slice(start, start + limit);
      return { data: page, has_more: start + limit < templates.length };
    },
    create: (workspaceId: string, input: TemplateCreate) => saveNewTemplate(store, workspaceId, input),
    async update(workspaceId: string, id: string, changes: TemplateUpdate): Promise<Template> {
      const current = isBuiltinId(id) ? undefined : await store.templates.get(workspaceId, id);
      if (!current) throw notFound(`No such template ${id}.`);
      const { fields, ...rest } = changes;
      const next: Template = { ...current, ...rest, ...(fields ? { fields: expandFields(fields) } : {}), updated_at: new Date().toISOString() };
      validateTemplate(next);
      await store.templates.replace({ ...next, workspace_id: workspaceId });
      return next;
    },
    async remove(workspaceId: string, id: string): Promise<void> {
      if (isBuiltinId(id) || !(await store.templates.delete(workspaceId, id))) throw notFound(`No such template ${id}.`);
    },
  };
}

export type TemplateService = ReturnType<typeof templateService>;
