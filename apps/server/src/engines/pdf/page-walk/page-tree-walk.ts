// Counts a PDF's pages by walking its page tree in this process (as the merge bench showed, a qpdf run
// per check cost a merge of 20 files most of its time over the bare qpdf CLI). It answers only for the
// plain case, where it must agree with qpdf's walk (QPDF::getAllPages): a strictly readable
// cross-reference, no encryption, every /Kids entry an indirect /Page or /Pages dictionary reached once.
// Anything else (damage qpdf would repair, a loop, a page reached twice, a node of no clear type, a cap
// passed) is left to qpdf, which decides and words the verdict: `undefined` here means "ask qpdf".
import { withFileBytes } from './file-bytes.js';
import { PdfObjects } from './pdf-objects.js';
import { Doubt, integerOf, isDict, nameOf, type PdfDict, PdfRef } from './pdf-syntax.js';

/**
 * Files read into memory whole (file-bytes.ts) and walked on the event loop; a bigger one is left to
 * qpdf, in its own process (for such a file a process start is a small part of the work anyway).
 */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Page-tree depth; real files stay under 10, and qpdf 11.3 itself crashes on 100,000. */
const MAX_DEPTH = 64;
/** All the walk reads of a node; the rest of each page (its resources, boxes, contents) is only checked. */
const NODE_KEYS: ReadonlySet<string> = new Set(['Type', 'Kids', 'Count']);
/** The page attributes a node passes down to the pages under it (ISO 32000-2 §7.7.3.4, Table 31). */
const INHERITED_KEYS = ['MediaBox', 'CropBox', 'Rotate'] as const;
/** What a walk that shows each page to a visitor reads of a node: its attributes too. */
const PAGE_KEYS: ReadonlySet<string> = new Set([...NODE_KEYS, ...INHERITED_KEYS, 'UserUnit']);

/**
 * Sees each page in page order: its dictionary's attributes, those it inherits filled in from the
 * nearest ancestor that has them, unresolved (a box may be a reference). `objects` resolves them.
 */
export type PageVisitor = (attributes: PdfDict, objects: PdfObjects) => void;

export interface PageTreeWalk {
  /** The /Page leaves really in the tree. */
  pageCount: number;
  /** What the root /Pages node's /Count claims, if it is an integer. */
  rootCount: number | undefined;
}

function node(objects: PdfObjects, kid: unknown, keys: ReadonlySet<string>): PdfDict {
  // qpdf turns a direct kid into an indirect one with a warning: not the plain case.
  if (!(kid instanceof PdfRef)) throw new Doubt('direct /Kids entry');
  const dict = objects.get(kid, keys);
  if (!isDict(dict)) throw new Doubt('page tree node is not a dictionary');
  return dict;
}

/** `dict`'s own inheritable attributes over those it inherits. */
function inheriting(inherited: PdfDict, dict: PdfDict): PdfDict {
  if (!INHERITED_KEYS.some((key) => dict.has(key))) return inherited;
  const attributes = new Map(inherited);
  for (const key of INHERITED_KEYS) if (dict.has(key)) attributes.set(key, dict.get(key) ?? null);
  return attributes;
}

/**
 * Walks the tree from the catalog's /Pages; every node is looked up once, or it is a Doubt. A visitor,
 * when given, sees each page in page order; a Doubt it throws is the walk's.
 */
export function walkPageTree(bytes: Buffer, maxPages: number, visit?: PageVisitor): PageTreeWalk {
  const keys = visit === undefined ? NODE_KEYS : PAGE_KEYS;
  const objects = new PdfObjects(bytes, 2 * maxPages + 1024);
  const catalog = objects.resolve(objects.trailer.get('Root'));
  if (!isDict(catalog)) throw new Doubt('no catalog');
  const rootRef = catalog.get('Pages');
  const root = node(objects, rootRef, keys);
  if (!root.has('Kids')) throw new Doubt('root of the page tree has no /Kids');
  const seen = new Set<string>([`${(rootRef as PdfRef).num} ${(rootRef as PdfRef).gen}`]);
  const stack: { dict: PdfDict; depth: number; inherited: PdfDict }[] = [
    { dict: root, depth: 0, inherited: new Map() },
  ];
  let pageCount = 0;
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { dict, depth } = top;
    const type = nameOf(dict.get('Type'));
    const inherited = visit === undefined ? top.inherited : inheriting(top.inherited, dict);
    if (!dict.has('Kids')) {
      if (type !== 'Page') throw new Doubt('leaf is not a /Page');
      if (++pageCount > maxPages) throw new Doubt('more pages than the cap');
      if (visit !== undefined) {
        // /UserUnit is the page's own, never inherited.
        const attributes = new Map(inherited);
        const userUnit = dict.get('UserUnit');
        if (userUnit !== undefined) attributes.set('UserUnit', userUnit);
        visit(attributes, objects);
      }
      continue;
    }
    const kids = dict.get('Kids');
    if (type !== 'Pages' || !Array.isArray(kids)) throw new Doubt('node with /Kids is not a /Pages');
    if (depth >= MAX_DEPTH) throw new Doubt('page tree nested too deeply');
    const nodes: PdfDict[] = [];
    for (const kid of kids) {
      const key = kid instanceof PdfRef ? `${kid.num} ${kid.gen}` : '';
      // A loop, or a page or node reached twice (qpdf copies such a page, with a warning).
      if (seen.has(key)) throw new Doubt('page tree node reached twice');
      seen.add(key);
      nodes.push(node(objects, kid, keys));
    }
    // Pushed last kid first, so that the pages come off the stack in page order.
    for (const kid of nodes.reverse()) stack.push({ dict: kid, depth: depth + 1, inherited });
  }
  return { pageCount, rootCount: integerOf(root.get('Count')) };
}

/** walkPageTree over the file at `path`: undefined when it has any doubt, and qpdf must decide. */
export async function walkPageTreeOf(
  path: string,
  maxPages: number,
  visit?: PageVisitor,
): Promise<PageTreeWalk | undefined> {
  return withFileBytes(path, MAX_FILE_BYTES, (bytes) => {
    try {
      return walkPageTree(bytes, maxPages, visit);
    } catch {
      // A Doubt, or a defect of this reader on a file nobody foresaw: either way qpdf judges the file,
      // so a walker bug costs a tool run, never a 500. The fuzz test holds the walker to Doubt alone.
      return undefined;
    }
  });
}
