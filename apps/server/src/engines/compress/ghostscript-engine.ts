// Compress with Ghostscript, then qpdf's lossless pass when qpdf is installed, and return nothing that has
// not been proven to hold the input's content. qpdf's lossless rewrite of the input is made first, beside the
// read of the input's structure: the best lossless size, which Ghostscript's output must beat. Where the
// input's images alone say it cannot (ghostscript-prospects.ts), Ghostscript is not run. Otherwise its
// candidates, smallest first: Ghostscript's output after qpdf, then Ghostscript's output. When Ghostscript
// admits a loss, the same with the other PDF interpreter where this Ghostscript still has two; when the
// content check refuses how `high`'s output looks, `medium`'s (presetLadder). A Ghostscript output no
// smaller than the lossless rewrite is not checked at all, nor packed by qpdf where the bytes qpdf would
// copy as they are already reach that size (qpdf-pass-floor.ts). When none is chosen, qpdf's rewrite of
// the input (a lossless tidy-up), proven beside Ghostscript's rewrite where one of the server's slots is
// idle, else once Ghostscript's output falls behind it or is refused. Each must be smaller than the
// input, have its page count and clear the content check's floors; failing all, the answer is the input
// itself (`original`). Out of time (call-deadline.ts), the rewrites give way to qpdf's, and the call to
// the original.
import { stat } from 'node:fs/promises';
import type { CpuSlots } from '../cpu-slots.js';
import { JobLanes } from '../job-lanes.js';
import { checkReadBudget } from '../page-budget.js';
import type { QpdfRun } from '../pdf/run-qpdf.js';
import { inspectPdf } from '../pdf-inspect.js';
import type { DetectedTools, ToolInfo } from '../tools.js';
import type {
  CompressEngine,
  CompressionLevel,
  CompressOutput,
  EngineLog,
  InputFile,
  WorkContext,
  WorkFolders,
} from '../types.js';
import { CallDeadline } from './call-deadline.js';
import { type Candidate, type Choice, candidate, keepOriginal } from './candidates.js';
import { type ContentCheck, createContentCheck } from './content-check/content-check.js';
import { type PdfStructure, readStructure } from './content-check/pdf-structure.js';
import { type Rewrite, rewriteWithGhostscript } from './ghostscript.js';
import { EVERY_IMAGE_KEPT, ghostscriptFloorBytes, NO_IMAGE_KEPT } from './ghostscript-prospects.js';
import { GhostscriptSpares } from './ghostscript-spares.js';
import { type ImageReadings, readImages } from './image-readings.js';
import { checkOutputPages } from './output-check.js';
import { PhaseTimer } from './phase-timer.js';
import { hasLegacyInterpreter, interpreterOrder, type PdfInterpreter, presetLadder } from './presets.js';
import { type Content, type Proof, proveCandidate } from './prove-candidate.js';
import { qpdfLosslessPass } from './qpdf-pass.js';
import { qpdfPassFloorBytes } from './qpdf-pass-floor.js';

export interface GhostscriptEngineOptions {
  gs: ToolInfo;
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  maxPages: number;
  timeoutMs: number;
  /** Where Ghostscripts started ahead of a call wait (ghostscript-spares.ts). */
  folders: WorkFolders;
  log: EngineLog;
}

/** One request's compression, once its input has passed inspection. */
interface Attempt {
  input: InputFile;
  /** What the tools read: the input from its `%PDF-` on (pdf-inspect.ts). */
  pdfPath: string;
  /** Pages found by walking its page tree. */
  pageCount: number;
  inputSize: number;
  level: CompressionLevel;
  job: WorkContext;
  timer: PhaseTimer;
  interpreters: readonly PdfInterpreter[];
  qpdf: QpdfRun | undefined;
  /** Where the rewrites run, ahead of the content check's reads (../job-lanes.ts). */
  lanes: JobLanes;
  deadline: CallDeadline;
  /** Starts the content check's look at the input, beside the first rewrite (settle() stops it). */
  startCheck(): void;
  /** Whether the input has form fields, which no Ghostscript rewrite keeps. */
  hasFormFields: boolean;
  /** The input's structure, where qpdf read it. */
  structure: PdfStructure | undefined;
  /** What the structure does not say of the input's images (image-readings.ts), read once when first asked. */
  images(structure: PdfStructure): Promise<ImageReadings>;
  /** qpdf's lossless rewrite of the input, and whether qpdf repaired it; undefined where it failed. */
  lossless: (Candidate & { repaired: boolean }) | undefined;
  prove(candidate: Candidate, content: Content): Promise<Proof>;
  /** The proof of `lossless`, started at the first call and shared by every later one. */
  proveLossless(): Promise<Proof> | undefined;
}

/** qpdf's lossless pass over Ghostscript's output, beside the main line; undefined where it failed. */
async function packed(
  a: Attempt,
  path: string,
  outputName: string,
  run: QpdfRun,
): Promise<Candidate | undefined> {
  const pass = await a.timer.time('qpdf', () =>
    a.lanes.beside(() => qpdfLosslessPass(path, outputName, run)),
  );
  if ('path' in pass) return candidate(pass.path, 'ghostscript+qpdf');
  a.job.log?.warn('compress candidate rejected', { method: 'ghostscript+qpdf', reason: pass.failure });
  return undefined;
}

export function createGhostscriptEngine(o: GhostscriptEngineOptions): CompressEngine {
  const { gs } = o;
  const { qpdf } = o.tools;
  const legacyAvailable = hasLegacyInterpreter(gs.version);
  const spares = new GhostscriptSpares(gs.path, o.folders, o.log);

  /**
   * Ghostscript at one preset with each interpreter in turn, until one runs without admitting a loss;
   * its output, and that after qpdf, then go to the content check. Undefined when every run failed.
   */
  async function ghostscriptOutput(
    a: Attempt,
    preset: CompressionLevel,
    bestBytes: number,
  ): Promise<Proof | undefined> {
    // qpdf's lossless rewrite answers where Ghostscript's output loses or is refused: most calls at
    // `low`, and every Google Docs or Apple Pages file. Where a core is idle now, its proof runs beside
    // Ghostscript's rewrite rather than after it (a whole check, where qpdf repaired the input, had been
    // the last 90 ms of Apple Pages' answer at `high`); on a busy server it waits until it is needed.
    // Asked before the check's look at the input takes that core: its reads go first.
    const coreIdle = a.lanes.slotSpare;
    a.startCheck();
    if (coreIdle) a.proveLossless();
    for (const interpreter of a.interpreters) {
      const name = `ghostscript-${preset}-${interpreter}`;
      let rewrite: Rewrite;
      try {
        rewrite = await a.timer.time('ghostscript', () =>
          a.lanes.main(() =>
            rewriteWithGhostscript(
              {
                level: preset,
                interpreter,
                inputPath: a.pdfPath,
                pageCount: a.pageCount,
                outputName: `${name}.pdf`,
                // Cut first by the rewrites' share of the call (a.deadline.rewrites), never by this.
                timeoutMs: 2 * o.timeoutMs,
              },
              spares,
              { ...a.job, signal: a.deadline.rewrites },
            ),
          ),
        );
      } catch (error) {
        if (!a.deadline.rewritesCut) throw error;
        // No time left for another rewrite either: on to qpdf's.
        a.job.log?.warn('compress candidate rejected', {
          method: 'ghostscript',
          preset,
          interpreter,
          reason: `Ghostscript's rewrites took more than their ${a.deadline.rewritesMs / 1000} s`,
        });
        return undefined;
      }
      if ('failure' in rewrite) {
        a.job.log?.warn('compress candidate rejected', {
          method: 'ghostscript',
          preset,
          interpreter,
          reason: `Ghostscript ${rewrite.failure}`,
        });
        continue;
      }
      // Files Ghostscript repaired on the way: worth knowing, not a reason to refuse the output.
      if (rewrite.notes !== '') a.job.log?.info('ghostscript notes', { interpreter, notes: rewrite.notes });
      const written = await candidate(rewrite.path, 'ghostscript');
      const ahead = written.size < bestBytes;
      // Where the output does not beat the best lossless answer, only qpdf's pass can still put it
      // ahead (on the fixtures corpus it did for 16 of 73 such outputs): the lossless rewrite is the
      // likelier answer, so it is proven while qpdf packs, not after (its proof had been the serial end
      // of most `low` calls). Where the bytes the pass copies as they are already reach that size, the
      // pass cannot, and is not run (11 of the 73, the Ghostscript output of scans mostly).
      if (!ahead) a.proveLossless();
      const passFloor = ahead ? undefined : await qpdfPassFloorBytes(rewrite.path);
      if (passFloor !== undefined && passFloor >= bestBytes) {
        const evidence = { ghostscript_bytes: written.size, qpdf_pass_floor_bytes: passFloor };
        return { chosen: undefined, rejected: false, evidence };
      }
      // qpdf's pass is lossless, so Ghostscript's output and that output after qpdf hold the same
      // content, and the answer is the smaller: a proof of one is a proof of both. So where the
      // output already beats the best lossless answer, it is proven while qpdf packs it, not after
      // (on the files Ghostscript won, the pass had been a fifth of the call).
      const packing = a.qpdf && packed(a, rewrite.path, `${name}-qpdf.pdf`, a.qpdf);
      const proving = ahead ? a.prove(written, 'rewritten') : undefined;
      proving?.catch(() => {});
      // A pass that throws (the disk full, the client gone) ends the call: not before the proof has
      // settled, whose tools would otherwise run on in a folder being removed.
      const repacked = await packing?.catch(async (error: unknown) => {
        await proving?.catch(() => undefined);
        throw error;
      });
      const smallest = repacked !== undefined && repacked.size < written.size ? repacked : written;
      // No smaller than the lossless rewrite (or the input): not worth its check, the answer is that.
      if (smallest.size >= bestBytes) {
        return { chosen: undefined, rejected: false, evidence: { ghostscript_bytes: smallest.size } };
      }
      const proof = await (proving ?? a.prove(smallest, 'rewritten'));
      const chosen = proof.chosen === undefined ? undefined : smallest;
      return { ...proof, chosen, evidence: { ...proof.evidence, preset, interpreter } };
    }
    return undefined;
  }

  /**
   * The floor under Ghostscript's output at `preset` where it reaches `bestBytes` (ghostscript-prospects.ts),
   * else undefined. The images are read only where that depends on them: not where the blank page alone
   * reaches it (a file of a kilobyte or two), nor where even every image kept whole would not.
   */
  async function floorReaching(a: Attempt, preset: CompressionLevel, bestBytes: number) {
    if (a.structure === undefined) return undefined;
    const lowest = ghostscriptFloorBytes(a.structure, preset, NO_IMAGE_KEPT);
    if (lowest >= bestBytes) return lowest;
    if (ghostscriptFloorBytes(a.structure, preset, EVERY_IMAGE_KEPT) < bestBytes) return undefined;
    const floorBytes = ghostscriptFloorBytes(a.structure, preset, await a.images(a.structure));
    return floorBytes >= bestBytes ? floorBytes : undefined;
  }

  async function choose(a: Attempt): Promise<{ output: Choice; evidence: Record<string, unknown> }> {
    // Ghostscript's pdfwrite does not carry form fields over (10.00 dropped the fields, values and
    // widgets of Acrobat's, LiveCycle's and LibreOffice's forms alike), so the check would refuse
    // every rewrite of a file with fields after paying for it: such a file goes to qpdf at once.
    const ladder = a.hasFormFields ? [] : presetLadder(a.level);
    const { lossless } = a;
    const bestBytes = Math.min(a.inputSize, lossless?.size ?? a.inputSize);
    let notes: Record<string, unknown> = {};
    for (const preset of ladder) {
      const floorBytes = await floorReaching(a, preset, bestBytes);
      if (floorBytes !== undefined) {
        // Milder presets keep at least as much of the images whole: none of them can win either.
        notes = { ghostscript_skipped: preset, ghostscript_floor_bytes: floorBytes };
        break;
      }
      const rewritten = await ghostscriptOutput(a, preset, bestBytes);
      if (rewritten?.chosen !== undefined) return { output: rewritten.chosen, evidence: rewritten.evidence };
      notes = rewritten?.evidence ?? {};
      // Only a refusal for how the pages look is worth a milder preset: a Ghostscript that cannot read the
      // file, an output that is simply not smaller, or one that lost text or structure (fonts and objects,
      // which the presets handle alike: they differ only in image resolution) would not change with
      // gentler settings. Google Docs' emoji, an Apple Pages page and a 3-Heights CCITT scan lost text at
      // `high`, then again at `medium` after a second run and check (1.3 s more on the scan).
      if (!rewritten?.rejected || rewritten.lostTextOrStructure) break;
    }
    const proof = await a.proveLossless();
    if (proof?.chosen !== undefined)
      return { output: proof.chosen, evidence: { ...notes, ...proof.evidence } };
    return { output: await keepOriginal(a.pdfPath, a.job.workDir), evidence: notes };
  }

  async function compress(
    input: InputFile,
    level: CompressionLevel,
    job: WorkContext,
  ): Promise<CompressOutput> {
    const { timeoutMs } = o;
    const timer = new PhaseTimer();
    // Ghostscript must never see a file that is empty, not a PDF (it *executes* PostScript), encrypted
    // or page-less, nor one over the page cap; it reads the copy inspection says starts at `%PDF-`.
    const { pageCount, path: pdfPath } = await timer.time('inspect', () =>
      inspectPdf(input, { maxPages: o.maxPages, tools: o.tools, timeoutMs, signal: job.signal }),
    );
    checkReadBudget(pageCount, 'to compress', job.pagesRead);
    const deadline = new CallDeadline(job.signal, timeoutMs);
    const work: WorkContext = { ...job, signal: deadline.call };
    const inputSize = (await stat(input.path)).size;
    const run: QpdfRun | undefined =
      qpdf === undefined ? undefined : { qpdf, cwd: job.workDir, timeoutMs, signal: work.signal };
    // From here on the tools may overlap (the check reads the input while Ghostscript rewrites it), so
    // each takes its turn in the slot this compress holds, or a spare one.
    const lanes = new JobLanes(o.cpuSlots, work.signal);
    // qpdf's lossless rewrite of the input, beside the read of its structure: its size is what any
    // Ghostscript output must beat, and whether Ghostscript can is judged before it runs.
    const tidying =
      run &&
      timer.time('qpdf', () => lanes.beside(() => qpdfLosslessPass(pdfPath, 'qpdf.pdf', run, pageCount)));
    tidying?.catch(() => {});
    // The input's structure, read once: the content check compares every candidate's with it, and its
    // fonts pick the interpreter. Without qpdf there is no cheap way to look at the fonts, so the
    // default interpreter goes first.
    const structure =
      run === undefined ? undefined : await timer.time('inspect', () => readStructure(pdfPath, 'input', run));
    const tidied = await tidying;
    if (tidied !== undefined && 'failure' in tidied)
      job.log?.warn('compress candidate rejected', { method: 'qpdf', reason: tidied.failure });
    const lossless =
      tidied === undefined || 'failure' in tidied
        ? undefined
        : { ...(await candidate(tidied.path, 'qpdf')), repaired: tidied.repaired };
    const read = structure !== undefined && 'value' in structure ? structure.value : undefined;
    const preferLegacy =
      legacyAvailable && read !== undefined && (read.compositeFonts || read.infoIsPageTree);
    const interpreters = interpreterOrder(legacyAvailable, preferLegacy);
    // The check renders with the default interpreter first whatever the fonts: unlike pdfwrite it was
    // faster there on composite fonts (0.35 s vs 1.07 s to render five pages).
    const checkInterpreters = interpreterOrder(legacyAvailable, false);
    const content: ContentCheck = createContentCheck(
      pdfPath,
      pageCount,
      {
        gs,
        interpreters: checkInterpreters,
        pdftotext: o.tools.pdftotext,
        pdftoppm: o.tools.pdftoppm,
        pdfimages: o.tools.pdfimages,
        structure: run === undefined || structure === undefined ? undefined : { input: structure, run },
        timeoutMs,
        lanes,
      },
      work,
    );
    const outputCheck = { tools: o.tools, cwd: job.workDir, timeoutMs, signal: work.signal };
    const proof = {
      inputSize,
      pages: (path: string) => lanes.main(() => checkOutputPages(path, pageCount, outputCheck)),
      content,
      log: job.log,
    };
    const prove = (c: Candidate, kind: Content) => timer.time('check', () => proveCandidate(c, proof, kind));
    let losslessProof: Promise<Proof> | undefined;
    const proveLossless = () => {
      if (lossless === undefined) return undefined;
      // Without repairs, qpdf's rewrite leaves every page's content as it was: only its structure
      // is worth proving. A file qpdf had to repair gets the whole check.
      if (losslessProof === undefined) {
        losslessProof = prove(lossless, lossless.repaired ? 'rewritten' : 'unchanged');
        // Awaited by choose() or, where another answer came first, before the job's folder goes.
        losslessProof.catch(() => {});
      }
      return losslessProof;
    };
    let imagesRead: Promise<ImageReadings> | undefined;
    const images = (structure: PdfStructure) => {
      const { pdfimages } = o.tools;
      const reading = () =>
        readImages({
          pdfPath,
          enough: inputSize,
          pageCount,
          structure,
          pdfimages,
          qpdf: run,
          timeoutMs,
          job: work,
        });
      imagesRead ??= timer.time('inspect', () => lanes.main(reading));
      return imagesRead;
    };
    try {
      const { output, evidence } = await choose({
        input,
        pdfPath,
        pageCount,
        inputSize,
        level,
        job: work,
        timer,
        interpreters,
        qpdf: run,
        lanes,
        deadline,
        hasFormFields: read !== undefined && read.fields.length > 0,
        structure: read,
        images,
        startCheck: () => content.start(),
        lossless,
        prove,
        proveLossless,
      }).catch(async (error: unknown) => {
        if (!deadline.callCut) throw error;
        job.log?.warn('compress ran out of time', { seconds: (2 * timeoutMs) / 1000 });
        return { output: await keepOriginal(pdfPath, job.workDir), evidence: {} };
      });
      job.log?.info('compressed', {
        compress_level: level,
        method: output.method,
        pages: pageCount,
        input_bytes: inputSize,
        output_bytes: output.size,
        ...evidence,
        ...timer.fields(),
        ...content.fields(),
      });
      return { ...output, pageCount };
    } finally {
      // Its tools must not outlive the job's folder, whether or not it was the answer.
      await losslessProof?.catch(() => undefined);
      await content.settle();
      deadline.dispose();
    }
  }

  return {
    info: { name: 'ghostscript', version: gs.version },
    compress: (input, level, job) => o.cpuSlots.run(() => compress(input, level, job), job.signal),
    close: () => spares.close(),
  };
}
