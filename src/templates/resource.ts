import type { components } from '../../generated/openapi.js';
import type { TemplateBody } from './shorthand.js';

type Template = components['schemas']['Template'];

/** The stored resource for a template body, with the documented defaults for members left out. */
export function toTemplate(
  input: TemplateBody,
  meta: Pick<Template, 'id' | 'built_in' | 'workspace_id' | 'created_at' | 'updated_at'>,
): Template {
  return {
    id: meta.id,
    object: 'template',
    name: input.name,
    description: input.description ?? '',
    keywords: input.keywords,
    exclude_keywords: input.exclude_keywords ?? [],
    priority: input.priority ?? 5,
    fields: input.fields,
    options: input.options ?? {},
    built_in: meta.built_in,
    workspace_id: meta.workspace_id,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
  };
}
