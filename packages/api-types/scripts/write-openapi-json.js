// Publishes the contract as data beside the types: the server serves it at GET /openapi.json and the
// end-to-end tests validate responses against it, both without reading the repository's YAML at run time.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const source = new URL('../../../openapi/openapi.yaml', import.meta.url);
const target = new URL('../dist/openapi.json', import.meta.url);
mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, `${JSON.stringify(parse(readFileSync(source, 'utf8')), null, 2)}\n`);
