// Runs after tsc (see src/api-types/index.ts): dist/api-types/ gets @pdn/api-types' own declarations
// instead of the re-export tsc emitted, so the packed SDK needs no @pdn/api-types.
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';

const from = new URL('./', import.meta.resolve('@pdn/api-types'));
const to = new URL('../dist/api-types/', import.meta.url);
for (const name of readdirSync(from)) {
  if (name.endsWith('.d.ts')) copyFileSync(new URL(name, from), new URL(name, to));
}

// A type imported from @pdn/api-types anywhere but src/api-types/ would still name it in dist/.
const dist = new URL('../dist/', import.meta.url);
for (const name of readdirSync(dist, { recursive: true })) {
  if (!name.endsWith('.d.ts') && !name.endsWith('.js')) continue;
  if (readFileSync(new URL(name, dist), 'utf8').includes('@pdn/api-types'))
    throw new Error(`dist/${name} names @pdn/api-types: import its types from src/api-types/index.js`);
}
