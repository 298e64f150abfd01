// The page tree's /Count entries set to the pages really under each node, for qpdf's lossless rewrite.
// qpdf keeps a page tree as it is, lying /Count included, and the proof of an output reads its root
// /Count (../pdf/run-qpdf.ts verifyQpdfOutput: poppler believes it), so a file whose root said
// 9999999999 over one page came back as its original at every level although qpdf's rewrite was
// smaller. qpdf will not rebuild the tree itself (`--pages . 1-z --` stops: "/Count is wrong after
// flattening pages tree"), but it applies changed objects given as its own JSON (`--update-from-json`,
// qpdf 11), every other object kept as it was.
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Dict, dictionary, type Json, type Objects, repairNumbers } from '../pdf/qpdf-json.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';

/** Beyond this the JSON is not parsed (memory), as for the structure read. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

interface QpdfJson {
  qpdf?: [Record<string, Json>, Objects];
}

const pagesNode = (objects: Objects, ref: Json | undefined): Dict | undefined =>
  typeof ref === 'string' ? dictionary(objects[`obj:${ref}`]?.value) : undefined;

/**
 * The page tree nodes whose /Count is not the number of pages under them, with the right count, or
 * undefined where the tree is not one (a node reached twice, a kid that is neither page nor node).
 * Exported for tests.
 */
export function wrongCounts(objects: Objects): Map<string, number> | undefined {
  const trailer = dictionary(objects.trailer?.value);
  const root = pagesNode(objects, trailer?.['/Root']);
  const top = root?.['/Pages'];
  if (typeof top !== 'string') return undefined;
  const counts = new Map<string, number>();
  const wrong = new Map<string, number>();
  // Depth first, each node's count once all its kids are counted; a stack, not recursion.
  const stack: { ref: string; expanded: boolean }[] = [{ ref: top, expanded: false }];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const entry = stack[stack.length - 1] as { ref: string; expanded: boolean };
    const node = pagesNode(objects, entry.ref);
    if (node === undefined) return undefined;
    const kids = node['/Kids'];
    if (node['/Type'] === '/Page' || (!Array.isArray(kids) && node['/Type'] !== '/Pages')) {
      counts.set(entry.ref, 1);
      stack.pop();
      continue;
    }
    if (!Array.isArray(kids)) return undefined;
    if (!entry.expanded) {
      if (seen.has(entry.ref)) return undefined;
      seen.add(entry.ref);
      entry.expanded = true;
      for (const kid of kids) {
        if (typeof kid !== 'string' || seen.has(kid)) return undefined;
        stack.push({ ref: kid, expanded: false });
      }
      continue;
    }
    const count = kids.reduce<number>((sum, kid) => sum + (counts.get(kid as string) ?? 0), 0);
    counts.set(entry.ref, count);
    if (node['/Count'] !== count) wrong.set(entry.ref, count);
    stack.pop();
  }
  return wrong;
}

/**
 * Rewrites `inputPath` to `outputPath` with qpdf's `passArgs` and every page tree /Count corrected;
 * false where the counts were right, or could not be read or corrected (`outputPath` then untouched).
 */
export async function rewriteWithPageCounts(
  inputPath: string,
  outputPath: string,
  passArgs: readonly string[],
  run: QpdfRun,
): Promise<boolean> {
  const json = resolve(run.cwd, 'page-tree.json');
  const read = await runQpdf(
    ['--json', '--json-key=qpdf', '--json-stream-data=none', resolve(inputPath), json],
    run,
  );
  if (!qpdfSucceeded(read)) return false;
  let parsed: QpdfJson;
  try {
    if ((await stat(json)).size > MAX_JSON_BYTES) return false;
    parsed = JSON.parse(repairNumbers(await readFile(json, 'utf8'))) as QpdfJson;
  } catch {
    return false;
  }
  const [header, objects] = parsed.qpdf ?? [];
  if (header === undefined || objects === undefined) return false;
  const wrong = wrongCounts(objects);
  if (wrong === undefined || wrong.size === 0) return false;
  const changed = Object.fromEntries(
    [...wrong].map(([ref, count]) => [
      `obj:${ref}`,
      { value: { ...pagesNode(objects, ref), '/Count': count } },
    ]),
  );
  const update = resolve(run.cwd, 'page-tree-update.json');
  await writeFile(update, JSON.stringify({ qpdf: [header, changed] }));
  const fixed = `${outputPath}.counted.pdf`;
  const rewritten = await runQpdf(
    [resolve(inputPath), `--update-from-json=${update}`, ...passArgs, fixed],
    run,
  );
  if (!qpdfSucceeded(rewritten)) return false;
  await rename(fixed, outputPath);
  return true;
}
