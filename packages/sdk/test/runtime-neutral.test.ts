// The SDK works in Node and in any runtime with standard fetch: no Node-only import on the main
// path except the path helper. Walks the static imports from src/index.ts and finds no `node:`.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
// Static `import ... from` / `export ... from` only: `import('node:fs')` is loaded when used.
const staticImport = /^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gm;

async function staticGraph(file: string, seen = new Map<string, string[]>()): Promise<Map<string, string[]>> {
  if (seen.has(file)) return seen;
  const text = await readFile(file, 'utf8');
  const specifiers = [...text.matchAll(staticImport)].map((match) => match[1] ?? '');
  seen.set(file, specifiers);
  for (const specifier of specifiers.filter((s) => s.startsWith('.'))) {
    await staticGraph(join(dirname(file), specifier.replace(/\.js$/, '.ts')), seen);
  }
  return seen;
}

it('the static import graph of src/index.ts has no node: module', async () => {
  const graph = await staticGraph(join(src, 'index.ts'));
  const nodeImports = [...graph].flatMap(([file, specifiers]) =>
    specifiers.filter((s) => s.startsWith('node:')).map((s) => `${file.slice(src.length)} -> ${s}`),
  );
  expect(graph.size).toBeGreaterThan(5); // the walk really followed the imports
  expect(nodeImports).toEqual([]);
});
