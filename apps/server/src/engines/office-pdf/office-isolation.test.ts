// Nothing of one conversion reaches the next in the same warm LibreOffice (the real one, where it is
// installed; the fonts a document carries are tested end to end, test/src/office-to-pdf.test.ts): a
// document's default styles shape its own PDF and not the next one's; the file a conversion read is
// named nowhere in the instance's profile, whose registry holds no recent-files list; no conversion
// adds or changes an autocorrect, dictionary, AutoText, template or Basic file, nor their settings. A
// document cannot write these (macros never run, and LibreOffice records no hidden document as recent):
// the tests look at the real profile files once LibreOffice has written its registry since. Then the
// fallback where no network namespace can be made: conversion works, in the server's own namespace,
// and the engine says so as it sets up.
import { createHash, randomBytes } from 'node:crypto';
import { access, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
import { OFFICE_ASSETS } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertersOf } from '../converters.js';
import { CpuSlots } from '../cpu-slots.js';
import { detectTools } from '../tools.js';
import { createOfficePdfEngine } from './index.js';
import { officePipePaths } from './office-pipes.js';
import type { OfficeBudget, OfficePdfEngine, OfficeRequest } from './types.js';

const tools = await detectTools();
const installed = convertersOf(tools).office.available;

const PLAIN: OfficeRequest = { landscape: false, pdfua: false, bookmarks: true };
const BUDGET: OfficeBudget = { seconds: 60, memoryBytes: 2 ** 30, maxPages: 100, holder: 'the Free plan' };

/** A ZIP package of stored parts (PKWARE APPNOTE 4.3), `mimetype` first as ODF wants it. */
function zip(parts: ReadonlyArray<[name: string, text: string]>): Buffer {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of parts) {
    const data = Buffer.from(text, 'utf8');
    const file = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(data.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(file.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(file.length, 28);
    entry.writeUInt32LE(offset, 42);
    local.push(head, file, data);
    central.push(entry, file);
    offset += head.length + file.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, directory, end]);
}

const NAMESPACES = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
].join(' ');

/** A text document of `paragraphs` in the default paragraph style, with `styles.xml` when given. */
function odt(paragraphs: readonly string[], styles?: string): Buffer {
  const body = paragraphs.map((text) => `<text:p>${text}</text:p>`).join('');
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NAMESPACES} office:version="1.3"><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  const listed = ['content.xml', ...(styles === undefined ? [] : ['styles.xml'])];
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
    '<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="application/vnd.oasis.opendocument.text"/>' +
    listed
      .map((name) => `<manifest:file-entry manifest:full-path="${name}" manifest:media-type="text/xml"/>`)
      .join('') +
    '</manifest:manifest>';
  return zip([
    ['mimetype', 'application/vnd.oasis.opendocument.text'],
    ['META-INF/manifest.xml', manifest],
    ['content.xml', content],
    ...(styles === undefined ? [] : [['styles.xml', styles] as [string, string]]),
  ]);
}

/**
 * styles.xml overriding the defaults: every paragraph in DejaVu Sans Mono at 30 pt, and the default page
 * style A5 landscape.
 */
const OVERRIDING_STYLES =
  `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${NAMESPACES} office:version="1.3">` +
  '<office:font-face-decls><style:font-face style:name="DejaVu Sans Mono" svg:font-family="\'DejaVu Sans Mono\'"/></office:font-face-decls>' +
  '<office:styles><style:default-style style:family="paragraph"><style:text-properties style:font-name="DejaVu Sans Mono" fo:font-size="30pt"/></style:default-style>' +
  '<style:style style:name="Standard" style:family="paragraph"><style:text-properties style:font-name="DejaVu Sans Mono" fo:font-size="30pt"/></style:style></office:styles>' +
  '<office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="14.8cm" style:print-orientation="landscape"/></style:page-layout></office:automatic-styles>' +
  '<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>' +
  '</office:document-styles>';

/** How a PDF of LibreOffice's looks: its fonts (without the subset tag) and its first page's size. */
function rendering(pdf: Buffer): { fonts: string[]; page: string } {
  const text = pdf.toString('latin1');
  const fonts = [...text.matchAll(/\/BaseFont\s*\/(?:[A-Z]{6}\+)?([^\s/>\]]+)/g)].map(
    (match) => match[1] ?? '',
  );
  const box = /\/MediaBox\s*\[\s*([\d.\s-]+)\]/.exec(text)?.[1] ?? '';
  return {
    fonts: [...new Set(fonts)].sort(),
    page: box.trim().split(/\s+/).map(Number).map(Math.round).join(' '),
  };
}

/** The registry window settings LibreOffice writes once it opened its first spreadsheet, presentation. */
const SPREADSHEET_WINDOW = /Factory\['com\.sun\.star\.sheet\.SpreadsheetDocument'\]/;
const PRESENTATION_WINDOW = /Factory\['com\.sun\.star\.presentation\.PresentationDocument'\]/;

/** The items of a registrymodifications.xcu, one string each. */
function registryItems(xcu: string): string[] {
  return [...xcu.matchAll(/<item [\s\S]*?<\/item>/g)].map((match) => match[0]);
}

/** The files under `root` whose name or bytes hold `text`. */
async function filesNaming(root: string, text: string): Promise<string[]> {
  const named: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (path.includes(text) || (await readFile(path)).toString('latin1').includes(text)) named.push(path);
  }
  return named;
}

/** Every file under `root`, by path below it, with a digest of its bytes. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(
      path.slice(root.length + 1),
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    );
  }
  return files;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Waits until `check` holds, or fails naming `what`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The files added, removed or changed from `before` to `after`. */
function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter(
    (path) => before.get(path) !== after.get(path),
  );
}

/** A warm engine of one instance and one slot, the folders it makes and what it logs. */
function warmEngine(dir: string, engineTools = tools) {
  const instances: string[] = [];
  const warnings: string[] = [];
  const engine: OfficePdfEngine = createOfficePdfEngine({
    tools: engineTools,
    cpuSlots: new CpuSlots(1),
    folders: {
      async create(prefix) {
        const folder = await mkdtemp(join(dir, prefix));
        if (prefix === 'libreoffice-') instances.push(folder);
        return folder;
      },
      remove: (folder) => rm(folder, { recursive: true, force: true }),
    },
    maxMemoryBytes: 2 * 2 ** 30,
    timeoutMs: 30_000,
    log: { info: () => {}, warn: (message) => warnings.push(message) },
  });
  let made = 0;
  /** Converts `bytes` written as `name`, in a work folder of its own; the PDF's bytes. */
  const convert = async (name: string, bytes: Buffer, request = PLAIN) => {
    made += 1;
    const workDir = await mkdtemp(join(dir, `job-${made}-`));
    const path = join(workDir, name);
    await writeFile(path, bytes);
    const signal = new AbortController().signal;
    const output = await engine.toPdf({ path, label: `"${name}"` }, request, BUDGET, { workDir, signal });
    return readFile(output.path);
  };
  return { engine, convert, instances, warnings };
}

describe.skipIf(!installed)('one warm LibreOffice, document after document', () => {
  let dir: string;
  let warm: ReturnType<typeof warmEngine>;
  const profile = () => join(warm.instances[0] ?? '', 'profile');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-office-isolation-'));
    warm = warmEngine(dir);
  });
  afterAll(async () => {
    await warm?.engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('renders a document in the styles it defines, and the next in the defaults again', async () => {
    const plain = odt(['Plain words in the default paragraph style.']);
    const before = rendering(await warm.convert('plain.odt', plain));
    const styled = rendering(
      await warm.convert('styled.odt', odt(["Words in styles of the document's own."], OVERRIDING_STYLES)),
    );
    // The document's styles do take effect in its own conversion...
    expect(styled.fonts).toContain('DejaVuSansMono');
    expect(styled.page).toBe('0 0 595 420');
    expect(before.fonts).not.toContain('DejaVuSansMono');
    expect(before.page).not.toBe(styled.page);
    // ...and nothing of them in the next one, in the same instance.
    expect(rendering(await warm.convert('plain-again.odt', plain))).toEqual(before);
    expect(warm.instances).toHaveLength(1);
  }, 120_000);

  it('names the file it converted nowhere in the instance profile, its registry written since', async () => {
    const token = `recent${randomBytes(6).toString('hex')}`;
    await warm.convert(`${token}.odt`, odt([`A document called ${token}.`]));
    const registry = join(profile(), 'user', 'registrymodifications.xcu');
    expect(await readFile(registry, 'utf8')).not.toMatch(SPREADSHEET_WINDOW);
    // The first spreadsheet of an instance has LibreOffice write its registry (where a recent-files
    // list would be) after the document above was closed: a check of the file sees what it kept.
    await warm.convert('sheet.xls', await readFile(join(OFFICE_ASSETS, 'excel-97-sample.xls')));
    await until('the registry is written', async () =>
      SPREADSHEET_WINDOW.test(await readFile(registry, 'utf8')),
    );
    expect(warm.instances).toHaveLength(1);
    expect(await filesNaming(profile(), token)).toEqual([]);
    const items = registryItems(await readFile(registry, 'utf8'));
    expect(items.filter((item) => /Office\.Histories|RecentDocuments/.test(item))).toEqual([]);
    expect(await readFile(registry, 'utf8')).toMatch(/oor:name="PickListSize" oor:op="fuse"><value>0</);
  }, 120_000);

  it('keeps no autocorrect entry, dictionary word, AutoText, template or macro of a document', async () => {
    await warm.convert('first.odt', odt(['The instance is warm.']));
    const registry = join(profile(), 'user', 'registrymodifications.xcu');
    const before = await snapshot(join(profile(), 'user'));
    const itemsBefore = registryItems(await readFile(registry, 'utf8'));
    // Documents of every family, the Word one with its glossary, and the styled one.
    for (const file of ['word-2007-sample.docx', 'powerpoint-2016-sample.pptx', 'libreoffice-4.2-sample.ods'])
      await warm.convert(file, await readFile(join(OFFICE_ASSETS, file)));
    await warm.convert('styled.odt', odt(['Teh words adn more.'], OVERRIDING_STYLES));
    // The first presentation of an instance has LibreOffice write its registry again: the comparison
    // sees what the conversions changed, and that it does see changes.
    await until('the registry is written', async () =>
      PRESENTATION_WINDOW.test(await readFile(registry, 'utf8')),
    );
    const after = await snapshot(join(profile(), 'user'));
    expect(warm.instances).toHaveLength(1);
    expect(changes(before, after)).toContain('registrymodifications.xcu');
    // Where autocorrect entries, user dictionaries, AutoText, templates and Basic macros are kept: not
    // a file added or changed (the temp folder is LibreOffice's scratch space for open documents).
    const kept = /^(autocorr|wordbook|autotext|template|basic|config|gallery|database)\//;
    expect(changes(before, after).filter((path) => kept.test(path))).toEqual([]);
    // Nor their settings in the registry: what was added is LibreOffice's own (window sizes, the spell
    // checkers it found).
    const added = registryItems(await readFile(registry, 'utf8')).filter(
      (item) => !itemsBefore.includes(item),
    );
    expect(
      added.filter((item) => /AutoCorrect|Dictionaries|IsIgnoreControlCharacters|Template|Basic/.test(item)),
    ).toEqual([]);
  }, 120_000);
});

/** The network namespace of the LibreOffice whose profile is in `instance`, as /proc names it. */
async function officeNamespace(instance: string): Promise<string> {
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (command.includes('soffice.bin') && command.includes(instance)) return readlink(`/proc/${pid}/ns/net`);
  }
  throw new Error(`no LibreOffice runs on ${instance}`);
}

describe.skipIf(!installed)('where no network namespace can be made', () => {
  let dir: string;
  const engines: OfficePdfEngine[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-office-namespace-'));
  });
  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('converts in the server namespace, and says so as it sets up', async () => {
    const own = await readlink('/proc/self/ns/net');
    const sample = await readFile(join(OFFICE_ASSETS, 'word-2007-sample.docx'));
    // An unshare that fails, as the kernel's refusal makes it fail where user namespaces are not
    // allowed ("unshare failed: Operation not permitted", exit 1): the engine's own probe decides.
    const refused = warmEngine(dir, { ...tools, unshare: { path: '/bin/false', version: '2.38.1' } });
    engines.push(refused.engine);
    const pdf = await refused.convert('refused.docx', sample);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(refused.warnings).toEqual([
      'LibreOffice runs with the network of the server: this user cannot make a network namespace',
    ]);
    expect(await officeNamespace(refused.instances[0] ?? '')).toBe(own);
    // Where the kernel allows it, the same engine runs LibreOffice in a namespace of its own, silently.
    const allowed = warmEngine(dir);
    engines.push(allowed.engine);
    await allowed.convert('allowed.docx', sample);
    if (allowed.warnings.length === 0)
      expect(await officeNamespace(allowed.instances[0] ?? '')).not.toBe(own);
  }, 120_000);
});

describe.skipIf(!installed)('an instance that has ended', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-office-pipes-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves neither of the sockets LibreOffice made in /tmp', async () => {
    const prefix = `OSL_PIPE_${process.getuid?.() ?? 0}_`;
    const ours = `${prefix}pdn-office-${process.pid}-`;
    const bridgePipes = async () => (await readdir('/tmp')).filter((name) => name.startsWith(ours));
    const warm = warmEngine(dir);
    await warm.convert('sample.docx', await readFile(join(OFFICE_ASSETS, 'word-2007-sample.docx')));
    // While it is warm, both sockets are where officePipePaths says: the bridge's, and the one named
    // after the profile's URL.
    const [bridge] = await bridgePipes();
    const paths = officePipePaths(
      (bridge ?? '').slice(prefix.length),
      pathToFileURL(join(warm.instances[0] ?? '', 'profile')).href,
    );
    for (const path of paths) expect(await exists(path), path).toBe(true);
    await warm.engine.close();
    for (const path of paths) expect(await exists(path), path).toBe(false);
    expect(await bridgePipes()).toEqual([]);
  }, 120_000);
});
