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

export type Match =
  | { kind: 'operation'; operation: OperationObject }
  /** The path is listed but not with this method; `allowed` is what its `Allow` header must name. */
  | { kind: 'no-method'; allowed: string[] }
  | { kind: 'no-path' };

/** `/docs/{asset}` as a pattern matching one path segment per parameter. */
function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

const templates = Object.keys(openapi.paths)
  .filter((path) => path.includes('{'))
  .map((path) => ({ path, pattern: templatePattern(path) }));

/**
 * What the document says about `method pathname`: exact paths first, then templated ones. HEAD is
 * answered wherever GET is (document description, "Unknown routes and wrong methods").
 */
export function findOperation(method: string, pathname: string): Match {
  const key = openapi.paths[pathname] ? pathname : templates.find((t) => t.pattern.test(pathname))?.path;
  const item = key === undefined ? undefined : openapi.paths[key];
  if (!item) return { kind: 'no-path' };
  const offered = Object.keys(item).filter((name) => METHODS.has(name));
  const lower = method.toLowerCase() === 'head' && offered.includes('get') ? 'get' : method.toLowerCase();
  const operation = offered.includes(lower) ? item[lower] : undefined;
  if (operation) return { kind: 'operation', operation };
  // OPTIONS answers the CORS preflight (document description, "Browsers (CORS)"), with the CORS
  // headers for an allowed origin and `Allow` for any other: not one of the methods `Allow` names.
  const allowed = offered.filter((name) => name !== 'options').map((name) => name.toUpperCase());
  if (offered.includes('get')) allowed.push('HEAD');
  return { kind: 'no-method', allowed };
}

export const errorResponseSchema = openapi.components.schemas.ErrorResponse as object;
