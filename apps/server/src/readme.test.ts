// The README's configuration table is the operators' one place to look: every variable
// config.ts (and backends/backend-config.ts) reads must be in it.
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

it("README.md's configuration table names every variable config.ts reads", async () => {
  const config = [
    await readFile(new URL('./config.ts', import.meta.url), 'utf8'),
    await readFile(new URL('./backends/backend-config.ts', import.meta.url), 'utf8'),
  ].join('\n');
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const read = new Set(
    [...config.matchAll(/\b(?:text|integer|flag|oneOf|url)\(env, '([A-Z_]+)'/g)].map((m) => m[1]),
  );
  read.add('XDG_DATA_HOME');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Running in production'));
  const listed = new Set([...table.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]));
  expect(read.size).toBeGreaterThan(30);
  expect([...read].filter((name) => !listed.has(name))).toEqual([]);
});
