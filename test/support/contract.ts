import { OpenAPIBackend, type Operation } from 'openapi-backend';
import ajvFormats from 'ajv-formats';
import Ajv from 'ajv';
import { loadApiDocument } from '../../src/openapi.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

interface HeaderObject {
  required?: boolean;
  schema?: { type?: string; pattern?: string; minimum?: number };
}

let backend: Promise<OpenAPIBackend> | null = null;

function api(): Promise<OpenAPIBackend> {
  backend ??= (async () => {
    const b = new OpenAPIBackend({
      definition: loadApiDocument().definition,
      customizeAjv: (ajv) => ajvFormats.default(ajv, ['date-time', 'email', 'uri']),
    });
    await b.init();
    return b;
  })();
  return backend;
}

function checkHeaders(documented: Record<string, HeaderObject>, headers: Headers, where: string): string[] {
  const problems: string[] = [];
  for (const [name, header] of Object.entries(documented)) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`${where}: header ${name} is missing`);
      continue;
    }
    const schema = header.schema ?? {};
    if (schema.type === 'integer' && !/^-?\d+$/.test(value)) problems.push(`${where}: header ${name}=${value} is not an integer`);
    if (schema.type === 'integer' && schema.minimum !== undefined && Number(value) < schema.minimum) problems.push(`${where}: header ${name}=${value} < ${schema.minimum}`);
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) problems.push(`${where}: header ${name}=${value} does not match ${schema.pattern}`);
  }
  return problems;
}

const errorValidator = (async () => {
  const ajv = new Ajv.default({ strict: false });
  const doc = (await api()).definition as unknown as { components: { schemas: Record<string, object> } };
  return ajv.compile({ ...doc.components.schemas.Error, components: doc.components });
})();

/**
 * Checks a response against the document: the status must be documented for the operation, the
 * body must match its schema and the documented headers must be there with the right form.
 * Responses outside any operation (unknown route, wrong method) must be the error envelope.
 */
export async function assertMatchesContract(operationId: string | null, res: ApiResponse): Promise<void> {
  const b = await api();
  const problems: string[] = [];
  if (!res.headers.get('x-request-id')?.match(/^req_[0-9A-HJKMNP-TV-Z]{26}$/)) problems.push('X-Request-Id is missing or malformed');
  if (operationId === null) {
    const validate = await errorValidator;
    if (!validate(res.body)) problems.push(`error envelope: ${JSON.stringify(validate.errors)}`);
  } else {
    const operation = b.getOperation(operationId) as Operation & { responses: Record<string, { headers?: Record<string, HeaderObject>; content?: Record<string, unknown> }> };
    const documented = operation.responses[String(res.status)];
    if (!documented) {
      problems.push(`${operationId}: status ${res.status} is not documented (${JSON.stringify(res.body)})`);
    } else {
      problems.push(...checkHeaders(documented.headers ?? {}, res.headers, `${operationId} ${res.status}`));
      if (documented.content?.['application/json']) {
        const result = b.validateResponse(res.body, operationId, res.status);
        if (result.errors?.length) problems.push(`${operationId} ${res.status} body: ${JSON.stringify(result.errors)}`);
      }
    }
  }
  if (res.status >= 400 && res.body && typeof res.body === 'object' && 'request_id' in res.body) {
    if ((res.body as { request_id: string }).request_id !== res.headers.get('x-request-id')) problems.push('body request_id differs from X-Request-Id');
  }
  if (problems.length) throw new Error(`response breaks the contract:\n${problems.join('\n')}`);
}
