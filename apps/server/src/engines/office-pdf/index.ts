// Office to PDF (openapi.yaml operation `officeToPdf`) with Debian's LibreOffice: the upload recognised
// by its bytes (office-format.ts) and handed to the one import filter of its format, in a warm instance
// (instance-pool.ts, office-instance.ts) on a fresh copy of a locked-down profile (profile.ts), without
// network (network-isolation.ts), within the caller's plan's time and memory, in a CPU slot. Where the
// tools are missing the operation answers 501 naming them (converters.ts).
import { realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import { requireConverter } from '../converters.js';
import type { CpuSlots } from '../cpu-slots.js';
import { pageRangesText } from '../page-ranges.js';
import { walkPageTree } from '../pdf/page-walk/page-tree-walk.js';
import { inspectPdf } from '../pdf-inspect.js';
import { toolReport } from '../tool-report.js';
import type { DetectedTools } from '../tools.js';
import type { EngineLog, InputFile, WorkContext, WorkFolders } from '../types.js';
import { readSmallFile } from './byte-source.js';
import { InstancePool } from './instance-pool.js';
import { networkIsolation } from './network-isolation.js';
import { recogniseDocument } from './office-format.js';
import { type ConvertFailure, OfficeInstance, OfficeInstanceDied } from './office-instance.js';
import { copyProfile, makeTemplateProfile } from './profile.js';
import type { OfficeBudget, OfficePdfEngine, OfficePdfOutput, OfficeRequest } from './types.js';

export type { OfficeBudget, OfficePdfEngine, OfficePdfOutput, OfficeRequest } from './types.js';

/** SelectPdfVersion of LibreOffice's PDF export for each PDF/A level. */
const PDFA_VERSIONS = { 'pdfa-1b': 1, 'pdfa-2b': 2, 'pdfa-3b': 3 } as const;
/** Making the template profile starts LibreOffice once, building its caches. */
const TEMPLATE_TIMEOUT_MS = 120_000;
/**
 * Conversions an instance makes before it is ended. LibreOffice 7.4 grew here by some 0.24 MB resident a
 * document of the corpus (211 MB after 13, 268 MB after 260) and a new instance takes about a second:
 * every 100 documents bounds the growth to some 25 MB for 10 ms a document (Gotenberg's default is 10).
 */
const RECYCLE_AFTER = 100;
/** An instance idle this long is ended: a server that converts once an hour holds no LibreOffice. */
const IDLE_MS = 10 * 60_000;
/**
 * An instance closes each document after answering (office-instance.ts), in milliseconds; one that has
 * not within this time is ended rather than handed the next document.
 */
const SETTLE_MS = 30_000;
const MIB = 2 ** 20;
/** How often LibreOffice's memory is looked at while it converts. */
const SAMPLE_MS = 100;
/**
 * A failure after LibreOffice held this share of the plan's memory is the budget's doing: a billion-cell
 * sheet under 1 GiB failed to load cleanly after 9.6 s, holding some 0.9 GiB, while the same sheet
 * without the limit kept loading past 1 GiB.
 */
const NEAR_LIMIT = 0.75;

export interface OfficePdfEngineOptions {
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  /** Where instances' profiles are made. */
  folders: WorkFolders;
  /** The largest plan's memory for a conversion: the limit instances start under. */
  maxMemoryBytes: number;
  /** Conversions per instance; tests set 1 to see every conversion start its own. */
  recycleAfter?: number;
  /** The server's tool timeout, for the PDF's page count. */
  timeoutMs: number;
  log: EngineLog;
}

interface Setup {
  template: string;
  sofficeBin: string;
  isolation: readonly string[];
}

/** soffice.bin beside Debian's soffice script, so that the bridge's child is LibreOffice itself. */
async function sofficeBinOf(soffice: string): Promise<string> {
  const bin = join(dirname(await realpath(soffice)), 'soffice.bin');
  return stat(bin).then(
    () => bin,
    () => soffice,
  );
}

export function createOfficePdfEngine(o: OfficePdfEngineOptions): OfficePdfEngine {
  let setup: Promise<Setup> | undefined;
  let instances = 0;
  const prepare = (): Promise<Setup> => {
    setup ??= (async () => {
      const soffice = o.tools.libreoffice?.path ?? 'soffice';
      const template = await o.folders.create('libreoffice-template-');
      await makeTemplateProfile(template, soffice, TEMPLATE_TIMEOUT_MS);
      const isolation = await networkIsolation(o.tools.unshare?.path);
      if (isolation.length === 0)
        o.log.warn(
          'LibreOffice runs with the network of the server: this user cannot make a network namespace',
        );
      return { template, sofficeBin: await sofficeBinOf(soffice), isolation };
    })();
    // A failed setup is tried again by the next conversion.
    setup.catch(() => {
      setup = undefined;
    });
    return setup;
  };

  const pool = new InstancePool({
    recycleAfter: o.recycleAfter ?? RECYCLE_AFTER,
    idleMs: IDLE_MS,
    settleMs: SETTLE_MS,
    log: o.log,
    start: async () => {
      const { template, sofficeBin, isolation } = await prepare();
      const folder = await o.folders.create('libreoffice-');
      const profileDir = join(folder, 'profile');
      await copyProfile(template, profileDir);
      instances += 1;
      const { prlimit } = o.tools;
      try {
        const instance = await OfficeInstance.start({
          python: o.tools.pyuno?.path ?? 'python3',
          sofficeBin,
          profileDir,
          pipeName: `pdn-office-${process.pid}-${instances}`,
          memoryLimit: prlimit === undefined ? undefined : { prlimit: prlimit.path, bytes: o.maxMemoryBytes },
          isolation,
          log: o.log,
        });
        return Object.assign(instance, {
          close: async () => {
            await instance.terminate();
            await o.folders.remove(folder);
          },
        });
      } catch (error) {
        await o.folders.remove(folder);
        throw new InternalError(`LibreOffice did not start: ${(error as Error).message}`, { cause: error });
      }
    },
  });

  return {
    async toPdf(input: InputFile, request: OfficeRequest, budget: OfficeBudget, job: WorkContext) {
      requireConverter(o.tools, 'office');
      const document = await recogniseDocument(input);
      const pages = request.pages === undefined ? undefined : pageRangesText(request.pages);
      const output = join(job.workDir, 'converted.pdf');
      const convert = {
        input: input.path,
        output,
        filter: document.filter,
        family: document.family,
        memory: budget.memoryBytes,
        pages,
        landscape: request.landscape,
        pdfa: request.pdfa === undefined ? 0 : PDFA_VERSIONS[request.pdfa],
        pdfua: request.pdfua,
        bookmarks: request.bookmarks,
      };
      // Bound now: the slot may start the conversion from another job's context.
      const report = toolReport();
      await o.cpuSlots.run(
        () =>
          pool.run(async (instance) => {
            const started = performance.now();
            const peak = sampleDataPeak(instance);
            const reply = await withinBudget(instance, instance.convert(convert), input, budget, job.signal)
              .catch((error: unknown) => {
                if (error instanceof OfficeInstanceDied) throw outOfMemory(input, budget, error);
                throw error;
              })
              .finally(() => peak.stop());
            report?.ran('libreoffice', performance.now() - started);
            if (reply.ok) return;
            // An allocation refused by the limit often ends in a load or export that fails cleanly.
            if (reply.kind !== 'pages' && peak.bytes() >= NEAR_LIMIT * budget.memoryBytes)
              throw outOfMemory(input, budget, new Error(reply.message));
            throw failure(input, document.format, budget, pages, reply);
          }),
        job.signal,
      );
      const { size, bytes } = readSmallFile(output);
      const pageCount =
        (bytes === undefined ? undefined : walkedPages(bytes)) ??
        (
          await inspectPdf(
            { path: output, label: `the PDF of ${input.label}` },
            { tools: o.tools, maxPages: Number.MAX_SAFE_INTEGER, timeoutMs: o.timeoutMs, signal: job.signal },
          )
        ).pageCount;
      if (pageCount > budget.maxPages)
        throw new InvalidInputError(
          `${input.label} converts to ${pageCount} pages; ${budget.holder} allows at most ${budget.maxPages} pages per conversion. ` +
            'Ask for some pages only (`pages`), or split the document.',
        );
      return { path: output, pageCount, size, format: document.format } satisfies OfficePdfOutput;
    },
    async close() {
      await pool.close();
      const made = await setup?.catch(() => undefined);
      if (made !== undefined) await o.folders.remove(made.template);
    },
  };
}

/**
 * The pages of the PDF LibreOffice wrote, by its page tree walked here: the file starts with its header
 * and is plain, so inspectPdf's checks of an upload's first bytes are not needed. Undefined leaves the
 * file to inspectPdf (qpdf): one the walk doubts, or one without pages, whose refusal inspectPdf words.
 */
function walkedPages(bytes: Buffer): number | undefined {
  try {
    const { pageCount } = walkPageTree(bytes, Number.MAX_SAFE_INTEGER);
    return pageCount > 0 ? pageCount : undefined;
  } catch {
    // A Doubt, or a defect of the walk on a file nobody foresaw: qpdf judges the file.
    return undefined;
  }
}

/** The most memory `instance` held for data while it converted, sampled until `stop()`. */
function sampleDataPeak(instance: OfficeInstance): { stop(): void; bytes(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    void instance.dataBytes().then((bytes) => {
      peak = Math.max(peak, bytes);
    });
  }, SAMPLE_MS);
  return { stop: () => clearInterval(timer), bytes: () => peak };
}

/**
 * The conversion's answer, or, when the plan's time runs out or the job is aborted first, the instance
 * killed (the pool then ends it for good) and the refusal naming the budget, or the abort's reason.
 */
async function withinBudget<T>(
  instance: OfficeInstance,
  work: Promise<T>,
  input: InputFile,
  budget: OfficeBudget,
  signal: AbortSignal,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const stop = (reason: unknown) => {
      reject(reason);
      void instance.terminate();
    };
    timer = setTimeout(() => stop(timedOut(input, budget)), budget.seconds * 1000);
    onAbort = () => stop(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

function timedOut(input: InputFile, budget: OfficeBudget): InvalidInputError {
  return new InvalidInputError(
    `${input.label} did not convert within ${budget.seconds} s, ${budget.holder}'s time for a conversion; ` +
      'LibreOffice was stopped. Convert a smaller document, or a part of it.',
  );
}

function outOfMemory(input: InputFile, budget: OfficeBudget, died: Error): InvalidInputError {
  return new InvalidInputError(
    `LibreOffice stopped while converting ${input.label}: it needed more than ${Math.round(budget.memoryBytes / MIB)} MB, ` +
      `${budget.holder}'s memory for a conversion, or the document is damaged. Convert a smaller document.`,
    { cause: died },
  );
}

function failure(
  input: InputFile,
  format: string,
  budget: OfficeBudget,
  pages: string | undefined,
  reply: ConvertFailure,
): Error {
  if (reply.kind === 'died') return outOfMemory(input, budget, new OfficeInstanceDied(reply.message));
  if (reply.kind === 'pages') {
    const count =
      reply.message === '' ? '' : `: it has ${reply.message} page${reply.message === '1' ? '' : 's'}`;
    return new InvalidInputError(`\`pages\` (${pages}) names no page of ${input.label}${count}.`);
  }
  if (reply.kind === 'unreadable') {
    const name = format.toUpperCase();
    const article = /^[ORX]/.test(name) ? 'an' : 'a';
    return new InvalidInputError(
      `${input.label} could not be read as ${article} ${name} document (LibreOffice: ${reply.message || 'no reason given'}).`,
    );
  }
  // LibreOffice gave up on the document and lives on: what the document asked of it could not be done.
  return new InvalidInputError(
    `${input.label} could not be converted: LibreOffice failed on it (${reply.message || 'no reason given'}).`,
  );
}
