import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';

export const OPENAPI_PATH = fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url));

export interface ApiDocument {
  yaml: string;
  json: string;
  definition: Document;
}

/** The contract, read once: served as written and handed to openapi-backend. */
export function loadApiDocument(): ApiDocument {
  const yaml = fs.readFileSync(OPENAPI_PATH, 'utf8');
  const definition = YAML.parse(yaml) as Document;
  return { yaml, json: JSON.stringify(definition), definition };
}
