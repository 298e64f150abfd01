// Office to PDF against LibreOffice driven directly, on the committed corpus of documents written by
// Word, Excel, PowerPoint, LibreOffice and OpenOffice (packages/fixtures/assets/office): pdn end to end
// (upload, the job in a warm instance, download) timed in alternation with a warm `soffice --headless
// --accept` that a minimal Python UNO client asks to load each file and store its PDF, and, for the
// record, with a cold `soffice --convert-to pdf` per document. The target is on the median over the
// corpus of each document's ratio. Then the server's memory with its LibreOffice warm and idle, and
// under 4 calls at once.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { OFFICE_ASSETS, OFFICE_SAMPLES } from '@pdn/fixtures';
import { fromPath } from '@pdn/sdk';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { sampleTreePeak, treeRss } from '../process-memory.js';
import { formatBytes, formatMs, type Row, skippedRow, table } from '../report.js';
import { percentile, summarize, timeAlternating } from '../stats.js';

const run = promisify(execFile);
const SCENARIO = '6c. Office to PDF';
const TIME_TARGET = 1.2;
const CONCURRENT = 4;

/** The minimal client: a path a line in, "ok" or the error a line out. */
const CLIENT = `
import sys, time, uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
def prop(name, value):
    p = PropertyValue(); p.Name = name; p.Value = value; return p
local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
for _ in range(600):
    try:
        context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % sys.argv[1]); break
    except NoConnectException:
        time.sleep(0.1)
desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
filters = {"com.sun.star.text.TextDocument": "writer_pdf_Export", "com.sun.star.sheet.SpreadsheetDocument": "calc_pdf_Export", "com.sun.star.presentation.PresentationDocument": "impress_pdf_Export"}
print("ready", flush=True)
for line in sys.stdin:
    source, target = line.rstrip("\\n").split("\\t")
    doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, (prop("Hidden", True),))
    name = next(f for s, f in filters.items() if doc.supportsService(s))
    doc.storeToURL(uno.systemPathToFileUrl(target), (prop("FilterName", name),))
    doc.close(True)
    print("ok", flush=True)
`;

function unoPython(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const python = join(dir, 'python3');
    try {
      execFileSync(python, ['-c', 'import uno'], { stdio: 'ignore', timeout: 10_000 });
      return python;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** A warm LibreOffice of its own, with the minimal client in front of it. */
class WarmOffice {
  readonly #office: ChildProcess;
  readonly #client: ChildProcess;
  readonly #lines: AsyncIterator<string>;

  private constructor(office: ChildProcess, client: ChildProcess) {
    this.#office = office;
    this.#client = client;
    if (client.stdout === null) throw new Error('no client output');
    this.#lines = createInterface({ input: client.stdout })[Symbol.asyncIterator]();
  }

  static async start(python: string, dir: string): Promise<WarmOffice> {
    // Unique on the machine: a LibreOffice left by a killed run must not answer this run's client.
    const pipe = `pdn-bench-office-${process.pid}-${randomBytes(4).toString('hex')}`;
    const office = spawn(
      'soffice',
      [
        '--headless',
        '--invisible',
        '--norestore',
        '--nologo',
        '--nodefault',
        `-env:UserInstallation=${pathToFileURL(join(dir, 'profile')).href}`,
        `--accept=pipe,name=${pipe};urp;`,
      ],
      // A process group of its own: `soffice` is a script whose soffice.bin outlives a kill of it alone.
      { stdio: 'ignore', env: { ...process.env, HOME: dir }, detached: true },
    );
    const script = join(dir, 'client.py');
    await writeFile(script, CLIENT);
    const client = spawn(python, [script, pipe], { stdio: ['pipe', 'pipe', 'inherit'] });
    const warm = new WarmOffice(office, client);
    if ((await warm.#lines.next()).value !== 'ready') throw new Error('the UNO client did not connect');
    return warm;
  }

  async convert(source: string, target: string): Promise<void> {
    this.#client.stdin?.write(`${source}\t${target}\n`);
    const { value } = await this.#lines.next();
    if (value !== 'ok') throw new Error(`the UNO client answered ${String(value)}`);
  }

  stop(): void {
    this.#client.kill('SIGKILL');
    if (this.#office.pid !== undefined) process.kill(-this.#office.pid, 'SIGKILL');
  }
}

/** A cold LibreOffice per document, on a profile made once (its first start builds caches). */
async function coldConvert(source: string, dir: string): Promise<void> {
  await run(
    'soffice',
    [
      '--headless',
      `-env:UserInstallation=${pathToFileURL(join(dir, 'cold-profile')).href}`,
      '--convert-to',
      'pdf',
      '--outdir',
      join(dir, 'cold'),
      source,
    ],
    { env: { ...process.env, HOME: dir } },
  );
}

async function viaPdn(context: BenchContext, source: string, output: string): Promise<number> {
  const result = await context.pdn.officeToPdf({ file: fromPath(source) });
  await context.pdn.download(result.download, output);
  return result.page_count;
}

async function officeToPdf(context: BenchContext): Promise<ScenarioResult> {
  const python = unoPython();
  if (python === undefined)
    return {
      rows: [skippedRow(SCENARIO, 'pdn / warm LibreOffice', 'LibreOffice with python3-uno is not installed')],
    };
  const dir = await mkdtemp(join(context.workDir, 'office-'));
  const serverPid = context.server.pid;
  const coldRss = await treeRss(serverPid);
  const warm = await WarmOffice.start(python, dir);
  await coldConvert(join(OFFICE_ASSETS, OFFICE_SAMPLES[0]?.file ?? ''), dir);
  const perDocument: { file: string; pages: number; pdn: number; warm: number; cold: number }[] = [];
  try {
    for (const sample of OFFICE_SAMPLES.slice(0, context.profile.officeDocuments)) {
      const source = join(OFFICE_ASSETS, sample.file);
      let pages = 0;
      const warmTimes = await timeAlternating(
        context.profile.officeRuns,
        async () => {
          pages = await viaPdn(context, source, join(dir, 'pdn.pdf'));
        },
        () => warm.convert(source, join(dir, 'warm.pdf')),
      );
      const coldTimes = await timeAlternating(
        1,
        () => viaPdn(context, source, join(dir, 'pdn.pdf')),
        () => coldConvert(source, dir),
        0,
      );
      perDocument.push({
        file: sample.file,
        pages,
        pdn: summarize(warmTimes.task).median,
        warm: summarize(warmTimes.baseline).median,
        cold: summarize(coldTimes.baseline).median,
      });
    }
  } finally {
    warm.stop();
  }
  const warmRatio = percentile(
    perDocument.map((d) => d.pdn / d.warm),
    50,
  );
  const coldRatio = percentile(
    perDocument.map((d) => d.pdn / d.cold),
    50,
  );
  const median = (key: 'pdn' | 'warm' | 'cold') =>
    formatMs(
      percentile(
        perDocument.map((d) => d[key]),
        50,
      ),
    );
  const rows: Row[] = [
    {
      scenario: SCENARIO,
      case: `${perDocument.length} documents (Word, Excel, PowerPoint, OpenDocument, RTF), pdn / warm LibreOffice over UNO: time`,
      pdn: median('pdn'),
      baseline: median('warm'),
      ratio: warmRatio,
      target: `<= ${TIME_TARGET.toFixed(2)}`,
      met: warmRatio <= TIME_TARGET,
      note: "median over the corpus of each document's ratio of medians; pdn: upload, the job, the conversion in a warm instance and the download, in alternation with a warm soffice --accept driven by a minimal Python UNO client",
    },
    {
      scenario: SCENARIO,
      case: `${perDocument.length} documents, pdn / cold soffice --convert-to pdf: time (for the record)`,
      pdn: median('pdn'),
      baseline: median('cold'),
      ratio: coldRatio,
      target: '',
      met: null,
      note: 'one cold run per document, on a profile made beforehand',
    },
  ];
  // The server's LibreOffice is warm now: idle, then under calls at once.
  const idle = await treeRss(serverPid);
  const peak = sampleTreePeak(serverPid, 100);
  await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      viaPdn(context, join(OFFICE_ASSETS, 'powerpoint-97-sample.ppt'), join(dir, `busy-${i}.pdf`)),
    ),
  );
  const busy = await peak.stop();
  const memoryRow = (what: string, bytes: number, note: string): Row => ({
    scenario: SCENARIO,
    case: `server with a warm LibreOffice, ${what}: memory (RSS of the process tree)`,
    pdn: formatBytes(bytes),
    baseline: formatBytes(coldRss),
    ratio: null,
    target: '',
    met: null,
    note,
  });
  rows.push(
    memoryRow(
      'idle',
      idle,
      `baseline: the same server before it converted anything; the difference, ${formatBytes(idle - coldRss)}, is the warm instances (shared pages counted in each process)`,
    ),
    memoryRow(
      `${CONCURRENT} calls at once`,
      busy,
      `peak sampled every 100 ms while ${CONCURRENT} conversions of a deck ran (as many at a time as job slots)`,
    ),
  );
  await rm(dir, { recursive: true, force: true });
  const details = table(
    ['document', 'pages', 'pdn', 'warm LibreOffice', 'ratio', 'cold soffice'],
    perDocument.map((d) => [
      d.file,
      String(d.pages),
      formatMs(d.pdn),
      formatMs(d.warm),
      (d.pdn / d.warm).toFixed(2),
      formatMs(d.cold),
    ]),
  );
  return { rows, details: [{ title: 'Office to PDF, per document (medians)', markdown: details }] };
}

export const officeToPdfScenario: Scenario = { name: 'office-to-pdf', run: officeToPdf };
