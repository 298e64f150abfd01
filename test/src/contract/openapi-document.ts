// The contract as data: openapi/openapi.yaml, published as JSON by @pdn/api-types, compiled once with
// Ajv for JSON Schema 2020-12 (the dialect of OpenAPI 3.1) in strict mode, so a schema keyword Ajv
// does not know fails loudly instead of being ignored.
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export interface HeaderObject {
  required?: boolean;
  schema?: object;
}

export interface ResponseObject {
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, { schema?: object }>;
}

export interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject | Reference>;
}

interface Reference {
  $ref: string;
}

interface Document {
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, object>;
    headers: Record<string, HeaderObject>;
    responses: Record<string, ResponseObject>;
  };
}

export const openapi = createRequire(import.meta.url)('@pdn/api-types/openapi.json') as Document;

/** The HTTP methods a path item can hold (its other keys are parameters, summary, ...). */
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `#/components/schemas/X` refs become refs into one registered schema holding all of them. */
const SCHEMAS_ID = 'https://pdn.test/openapi-schemas';

// ajv-formats is CommonJS: its module object is the plugin and also carries it as `.default`, which is
// the only spelling TypeScript (NodeNext) and Node agree on.
const addFormats = addFormatsModule.default;

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
ajv.addSchema({ $id: SCHEMAS_ID, $defs: rewriteRefs(openapi.components.schemas) });

function rewriteRefs<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value).replaceAll('"#/components/schemas/', `"${SCHEMAS_ID}#/$defs/`),
  ) as T;
}

const compiled = new Map<object, ValidateFunction>();

/** A validator for a schema taken from the document (response bodies, header values). */
export function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(schema));
    compiled.set(schema, validate);
  }
  return validate;
}

/** Ajv's errors as one readable line. */
export function describeErrors(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { dataVar: 'body' });
}

/** Follows a local `$ref` (`#/components/responses/X`, `#/components/headers/X`). */
export function resolve<T extends object>(value: T | Reference): T {
  if (!('$ref' in value)) return value;
  let target: unknown = openapi;
  for (const segment of value.$ref.replace(/^#\//, '').split('/')) {
    target = (target as Record<string, unknown>)[segment];
  }
  if (target === undefined) throw new Error(`unresolvable $ref ${value.$ref} in the OpenAPI document`);
  return target as T;
}

/** The operation documented for `method path`, `'no-method'` when only the path is known, else undefined. */
export function findOperation(method: string, pathname: string): OperationObject | 'no-method' | undefined {
  const item = openapi.paths[pathname];
  if (!item) return undefined;
  const lower = method.toLowerCase();
  return METHODS.has(lower) && item[lower] ? item[lower] : 'no-method';
}

export const errorResponseSchema = openapi.components.schemas.ErrorResponse as object;
