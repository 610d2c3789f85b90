import type { ErrorObject } from 'ajv';
import { invalidRequest, type ApiError } from '../errors.js';

const ROOTS: Record<string, string> = { requestBody: 'body', path: 'path', query: 'query', header: 'header' };

/** `/requestBody/fields/total/regex` -> `body.fields.total.regex` */
function memberPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length && ROOTS[parts[0]]) parts[0] = ROOTS[parts[0]];
  if (extra) parts.push(extra);
  return parts.join('.') || 'body';
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const missing = String(p.missingProperty);
      if (e.instancePath === '' && missing === 'requestBody') return 'body: a JSON request body is required';
      return `${memberPath(e.instancePath, missing)}: is required`;
    }
    case 'additionalProperties':
      return `${memberPath(e.instancePath, String(p.additionalProperty))}: is not a known member`;
    case 'parse':
      return `body: is not valid JSON (${e.message})`;
    case 'enum':
      return `${memberPath(e.instancePath)}: must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    default:
      return `${memberPath(e.instancePath)}: ${e.message}`;
  }
}

/** One 400 naming the first few members that do not match the document. */
export function validationError(errors: ErrorObject[]): ApiError {
  // oneOf failures repeat the same problem per branch; the branches' own errors say more.
  const useful = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'if');
  const messages = [...new Set((useful.length ? useful : errors).map(describe))];
  return invalidRequest(messages.slice(0, 5).join('; '));
}
