import SwaggerParser from '@apidevtools/swagger-parser';
import { OPENAPI_PATH } from '../src/openapi.js';

// Validates the document against the OpenAPI 3.0 schema and resolves every $ref.
await SwaggerParser.validate(OPENAPI_PATH);
process.stdout.write(`${OPENAPI_PATH}: valid OpenAPI document\n`);
