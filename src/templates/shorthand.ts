import type { components } from '../../generated/openapi.js';

type TemplateCreate = components['schemas']['TemplateCreate'];
type TemplateFieldsInput = components['schemas']['TemplateFieldsInput'];
type TemplateFields = components['schemas']['TemplateFields'];

/** A template body with every rule written out, as stored, validated and applied. */
export type TemplateBody = Omit<TemplateCreate, 'fields'> & { fields: TemplateFields };

/** invoice2data's shorthand: a bare pattern, or a list of them, is a `regex` rule. */
export function expandFields(fields: TemplateFieldsInput): TemplateFields {
  return Object.fromEntries(Object.entries(fields).map(([name, rule]) => [name, typeof rule === 'string' || Array.isArray(rule) ? { parser: 'regex' as const, regex: rule } : rule]));
}

export function expandTemplate(input: TemplateCreate): TemplateBody {
  return { ...input, fields: expandFields(input.fields) };
}
