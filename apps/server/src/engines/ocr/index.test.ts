// The OCR engine end to end on real images with known text (@pdn/fixtures), through real tesseract.js
// workers and, where installed, the real tesseract binary.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  characterErrorRate,
  duplicateDimensionTiff,
  ENG_TEXT_IMAGES,
  garbageImage,
  hiddenFrameJpeg,
  hugeDimensionsPng,
  IMAGE_ASSETS,
  OCR_FORMATS,
  OCR_LANGUAGES,
  OCR_TEXTS,
  type OcrFormat,
  type OcrLanguage,
  ocrSample,
  TWO_PAGE_TIFF,
  textPdf,
} from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError, InvalidInputError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { type DetectedTools, detectTools } from '../tools.js';
import type { EngineLog, InputFile, OcrEngine, WorkContext } from '../types.js';
import { createOcrEngine, type OcrEngineOptions } from './index.js';
import { loadLanguageRegistry } from './language-registry.js';
import { listNativeTesseract } from './native-tesseract.js';

/** Share of characters an engine may get wrong on our clean 300 dpi samples. */
const MAX_CER = 0.05;
const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';
const hasDebianRus = existsSync(join(DEBIAN_TESSDATA, 'rus.traineddata'));
if (!hasDebianRus)
  console.warn('tesseract-ocr-rus is not installed: the PDN_TESSDATA_DIR (rus) tests are skipped');

const tools: DetectedTools = await detectTools();
/** The languages the server bundles from npm, whatever the machine has. */
const BUNDLED_CODES = new Set(
  (await loadLanguageRegistry({ log: { info: () => {}, warn: () => {} } }))
    .list()
    .map((language) => language.code),
);
const hasTesseract = tools.tesseract !== undefined;
if (!hasTesseract) console.warn('tesseract is not installed: the native OCR tests are skipped');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-ocr-engine-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** This process's peak resident memory (Linux VmHWM), in bytes. */
function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

class RecordingLog implements EngineLog {
  readonly messages: string[] = [];
  readonly #waiters: { message: string; resolve: () => void }[] = [];
  info(message: string): void {
    this.messages.push(message);
    for (const waiter of this.#waiters.filter((w) => w.message === message)) waiter.resolve();
  }
  warn(message: string): void {
    this.info(message);
  }
  count(message: string): number {
    return this.messages.filter((m) => m === message).length;
  }
  /** Resolves the next time `message` is logged. */
  next(message: string): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ message, resolve }));
  }
}

/** An engine as main.ts makes one: native tesseract listed first from the tools it is given. */
async function engineWith(options: Partial<OcrEngineOptions> = {}): Promise<OcrEngine> {
  const log = options.log ?? new RecordingLog();
  const native = await listNativeTesseract((options.tools ?? tools).tesseract, options.tessdataDir, log);
  return createOcrEngine({
    choice: 'tesseract.js',
    tools,
    native,
    // Wider than any pool here, so these tests see the pools' own queueing.
    cpuSlots: new CpuSlots(4),
    maxImagePixels: 40_000_000,
    memoryBytes: 1024 * 2 ** 20,
    poolSize: 1,
    recycleAfter: 200,
    timeoutMs: 120_000,
    ...options,
    log,
  });
}

/** Runs `use` on an engine made with `options` and a fresh log, closing the engine whatever happens. */
async function withEngine(
  options: Partial<OcrEngineOptions>,
  use: (engine: OcrEngine, log: RecordingLog) => Promise<void>,
): Promise<void> {
  const log = new RecordingLog();
  const engine = await engineWith({ log, ...options });
  try {
    await use(engine, log);
  } finally {
    await engine.close();
  }
}

async function file(bytes: Uint8Array, label: string): Promise<InputFile> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}-${label}`);
  await writeFile(path, bytes);
  return { path, label };
}

async function sample(language: OcrLanguage, format: OcrFormat): Promise<InputFile> {
  return file((await ocrSample(language, format)).bytes, `${language}.${format}`);
}

function job(signal = new AbortController().signal): WorkContext {
  return { workDir: dir, signal };
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('expected the promise to reject with an Error');
  return error;
}

describe('OCR engine on tesseract.js', { timeout: 60_000 }, () => {
  let engine: OcrEngine;
  const log = new RecordingLog();
  beforeAll(async () => {
    engine = await engineWith({ log });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('names tesseract.js 7 and lists the bundled languages', () => {
    expect(engine.info).toEqual({ name: 'tesseract.js', version: expect.stringMatching(/^7\./) });
    expect(engine.languages().length).toBeGreaterThanOrEqual(24);
    expect(engine.languages()).toContainEqual({ code: 'chi_sim', source: 'bundled' });
  });

  it.each(OCR_FORMATS)('reads English text from a %s image', async (format) => {
    const result = await engine.recognize(await sample('eng', format), 'eng', job());
    expect(characterErrorRate(OCR_TEXTS.eng, result.text)).toBeLessThan(MAX_CER);
    expect(result.language).toBe('eng');
    expect(result.confidence).toBeGreaterThan(50);
    expect(result.confidence).toBeLessThanOrEqual(100);
  });

  const languages: OcrLanguage[] = ['deu', 'fra', 'spa', 'ukr', 'ell'];
  it.each(languages)('reads %s text with its own language data', async (language) => {
    const result = await engine.recognize(await sample(language, 'png'), language, job());
    expect(characterErrorRate(OCR_TEXTS[language], result.text)).toBeLessThan(MAX_CER);
    expect(result.language).toBe(language);
  });

  it('reads German with the eng+deu combination, named as read: sorted', async () => {
    const result = await engine.recognize(await sample('deu', 'png'), 'eng+deu', job());
    expect(characterErrorRate(OCR_TEXTS.deu, result.text)).toBeLessThan(MAX_CER);
    expect(result.language).toBe('deu+eng');
  });

  // Every encoding the spec promises, as other software writes it (fixtures SOURCES.md).
  it.each(ENG_TEXT_IMAGES)('reads English from %s, written by other software', async (name) => {
    const image = { path: join(IMAGE_ASSETS, 'text', name), label: name };
    const result = await engine.recognize(image, 'eng', job());
    expect(characterErrorRate(OCR_TEXTS.eng, result.text)).toBeLessThan(MAX_CER);
  });

  it('reads every page of a multi-page TIFF, pages apart by a form feed', async () => {
    const image = { path: join(IMAGE_ASSETS, 'text', TWO_PAGE_TIFF), label: TWO_PAGE_TIFF };
    const result = await engine.recognize(image, 'deu+eng', job());
    const pages = result.text.split('\f');
    expect(pages).toHaveLength(2);
    expect(characterErrorRate(OCR_TEXTS.eng, pages[0] ?? '')).toBeLessThan(MAX_CER);
    expect(characterErrorRate(OCR_TEXTS.deu, pages[1] ?? '')).toBeLessThan(MAX_CER);
  });

  it('answers empty text with confidence 0 for an image without text', async () => {
    const result = await engine.recognize(await file(hugeDimensionsPng(300, 100), 'blank.png'), 'eng', job());
    expect(result.text.trim()).toBe('');
    expect(result.confidence).toBe(0);
  });

  it('refuses an unknown language, naming where the codes are listed', async () => {
    const error = await refusal(engine.recognize(await sample('eng', 'png'), 'klingon', job()));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toMatch(/unknown OCR language "klingon".*GET \/api\/v1\/languages/);
  });

  it('refuses PNGs whose data is garbage, and goes on serving on the same process', async () => {
    await engine.recognize(await sample('eng', 'png'), 'eng', job());
    const started = log.count('OCR worker started');
    for (let seed = 1; seed <= 3; seed += 1) {
      const error = await refusal(
        engine.recognize(await file(garbageImage(seed), 'garbage.png'), 'eng', job()),
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toMatch(/garbage\.png could not be read as a PNG image/);
    }
    const next = await engine.recognize(await sample('eng', 'png'), 'eng', job());
    expect(characterErrorRate(OCR_TEXTS.eng, next.text)).toBeLessThan(MAX_CER);
    expect(log.count('OCR worker started')).toBe(started);
  });

  // QA: a cut-off BMP made bmp-js (inside tesseract.js) throw RangeError, answered as a 500.
  it('refuses a truncated BMP as damaged, and goes on serving on the same process', async () => {
    await engine.recognize(await sample('eng', 'png'), 'eng', job());
    const started = log.count('OCR worker started');
    const bmp = (await ocrSample('eng', 'bmp')).bytes;
    const error = await refusal(engine.recognize(await file(bmp.subarray(0, 5000), 'cut.bmp'), 'eng', job()));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toMatch(/cut\.bmp could not be read as a BMP image/);
    const next = await engine.recognize(await sample('eng', 'png'), 'eng', job());
    expect(characterErrorRate(OCR_TEXTS.eng, next.text)).toBeLessThan(MAX_CER);
    expect(log.count('OCR worker started')).toBe(started);
  });

  it('refuses a file that is not an image, naming the accepted formats', async () => {
    const error = await refusal(engine.recognize(await file(await textPdf(), 'report.pdf'), 'eng', job()));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toBe(
      'report.pdf is not a supported image: send PNG, JPEG, TIFF, WebP or BMP (recognised by content)',
    );
  });
});

describe('OCR engine limits and worker lifecycle', { timeout: 60_000 }, () => {
  // Both once got past the header check; now neither reaches a decoder.
  it.each<[string, Uint8Array, RegExp]>([
    [
      'a TIFF listing its size twice',
      duplicateDimensionTiff(),
      /ambiguous: a TIFF directory lists tag 256 twice/,
    ],
    ['a JPEG hiding its 16000x16000 frame', hiddenFrameJpeg(), /is 16000x16000 pixels/],
  ])('refuses %s from its header, without starting a process', async (_name, bytes, message) => {
    await withEngine({}, async (engine, log) => {
      const error = await refusal(engine.recognize(await file(bytes, 'attack.img'), 'eng', job()));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toMatch(message);
      expect(log.count('OCR worker started')).toBe(0);
    });
  });

  // The bound behind the header check: an honest 400-megapixel image, under a cap raised to let it
  // through, fails in its OCR process and never grows this one: its greyscale pixels alone are 381 MB,
  // over a 384 MiB limit that Node, sharp and tesseract.js already use part of.
  it('fails an image whose decoding needs more than the memory limit, in the OCR process', async () => {
    await withEngine({ maxImagePixels: 500_000_000, memoryBytes: 384 * 2 ** 20 }, async (engine, log) => {
      const before = peakRss();
      const error = await refusal(
        engine.recognize(await file(hugeDimensionsPng(), 'huge.png'), 'eng', job()),
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toMatch(
        /huge\.png needs more memory to read than this server allows for one image \(384 MiB\)/,
      );
      // The process that failed is retired; the next job starts another one.
      await engine.recognize(await sample('eng', 'png'), 'eng', job());
      expect(log.count('OCR worker started')).toBe(2);
      // None of the 400 MB of pixels ever lived here.
      expect(peakRss() - before).toBeLessThan(100 * 2 ** 20);
    });
  });

  it('refuses a 20000x20000 PNG from its header, without starting a worker', async () => {
    await withEngine({}, async (engine, log) => {
      const error = await refusal(
        engine.recognize(await file(hugeDimensionsPng(), 'huge.png'), 'eng', job()),
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toMatch(/huge\.png is 20000x20000 pixels .* at most 40,000,000 pixels/);
      expect(log.count('OCR worker started')).toBe(0);
    });
  });

  it('reuses one warm worker and recycles it after recycleAfter jobs', async () => {
    await withEngine({ recycleAfter: 2 }, async (engine, log) => {
      const image = await sample('eng', 'png');
      for (let i = 0; i < 3; i += 1) await engine.recognize(image, 'eng', job());
      expect(log.count('OCR worker started')).toBe(2);
      expect(log.count('OCR worker recycled')).toBe(1);
    });
  });

  it('keeps one process per language set, whatever the order or repeats', async () => {
    await withEngine({}, async (engine, log) => {
      const image = await sample('eng', 'png');
      for (const language of ['eng+deu', 'deu+eng', 'eng+deu+eng']) {
        expect((await engine.recognize(image, language, job())).language).toBe('deu+eng');
      }
      expect(log.count('OCR worker started')).toBe(1);
    });
  });

  // A pool per language set, never closed, grew RSS from 587 MB to 4.24 GB.
  it('holds at most poolSize processes across language sets, closing the least recently used', {
    timeout: 180_000,
  }, async () => {
    await withEngine({ poolSize: 2 }, async (engine, log) => {
      const image = await sample('eng', 'png');
      for (const language of ['eng', 'deu', 'eng', 'fra', 'spa', 'eng']) {
        await engine.recognize(image, language, job());
      }
      // eng, deu, then fra in deu's place, spa in eng's, eng in fra's: five starts, never three alive.
      expect(log.count('OCR worker started')).toBe(5);
      expect(log.count('OCR worker closed for another language set (least recently used)')).toBe(3);
    });
  });

  it('closes an OCR process that stayed idle', async () => {
    await withEngine({ idleMs: 50 }, async (engine, log) => {
      const retired = log.next('OCR worker retired after idling');
      await engine.recognize(await sample('eng', 'png'), 'eng', job());
      await retired;
    });
  });

  it('never starts a job aborted while it waits for the worker', async () => {
    await withEngine({ recycleAfter: 2 }, async (engine, log) => {
      const image = await sample('eng', 'png');
      const first = engine.recognize(image, 'eng', job());
      const client = new AbortController();
      const waiting = engine.recognize(image, 'eng', job(client.signal));
      client.abort(new Error('client went away'));
      expect((await refusal(waiting)).message).toBe('client went away');
      await first;
      // Had the aborted job run, the worker would have reached recycleAfter (2 jobs).
      await engine.recognize(image, 'eng', job());
      expect(log.count('OCR worker recycled')).toBe(1);
      expect(log.count('OCR worker started')).toBe(1);
    });
  });

  it('terminates the worker of a job aborted while running, and serves the next on a new one', async () => {
    await withEngine({}, async (engine, log) => {
      const image = await sample('eng', 'png');
      const client = new AbortController();
      const started = log.next('OCR worker started');
      const running = engine.recognize(image, 'eng', job(client.signal));
      await started;
      // Let the job take its new worker and begin reading the image.
      await new Promise((resolve) => setImmediate(resolve));
      client.abort(new Error('client went away'));
      expect((await refusal(running)).message).toBe('client went away');
      const next = await engine.recognize(image, 'eng', job());
      expect(characterErrorRate(OCR_TEXTS.eng, next.text)).toBeLessThan(MAX_CER);
      expect(log.count('OCR worker started')).toBe(2);
    });
  });

  it('falls back to tesseract.js under auto when the binary cannot list its languages', async () => {
    const broken = join(dir, 'broken-tesseract');
    await writeFile(broken, '#!/bin/sh\necho "Error opening data file" >&2\nexit 1\n', { mode: 0o755 });
    const brokenTools = { ...tools, tesseract: { path: broken, version: '5.3.0' } };
    await withEngine({ choice: 'auto', tools: brokenTools }, async (engine, log) => {
      expect(engine.info.name).toBe('tesseract.js');
      expect(log.count('native tesseract unusable, OCR runs on tesseract.js only')).toBe(1);
    });
    await expect(engineWith({ choice: 'tesseract', tools: brokenTools })).rejects.toThrow(
      /--list-langs failed/,
    );
  });

  it('refuses to start with choice tesseract when the binary is missing', async () => {
    const { tesseract: _absent, ...withoutTesseract } = tools;
    await expect(engineWith({ choice: 'tesseract', tools: withoutTesseract })).rejects.toThrow(
      /no tesseract binary/,
    );
  });

  it('refuses to start without prlimit, which bounds its memory', async () => {
    const { prlimit: _absent, ...withoutPrlimit } = tools;
    await expect(engineWith({ tools: withoutPrlimit })).rejects.toThrow(/needs prlimit \(util-linux\)/);
  });
});

describe.skipIf(!hasDebianRus)(
  'OCR engine with PDN_TESSDATA_DIR (Debian tessdata)',
  { timeout: 60_000 },
  () => {
    let engine: OcrEngine;
    beforeAll(async () => {
      engine = await engineWith({ tessdataDir: DEBIAN_TESSDATA });
    });
    afterAll(async () => {
      await engine.close();
    });

    it('lists rus as a system language', () => {
      expect(engine.languages()).toContainEqual({ code: 'rus', source: 'system' });
    });

    it('reads Russian with the uncompressed system data', async () => {
      const result = await engine.recognize(await sample('rus', 'png'), 'rus', job());
      expect(characterErrorRate(OCR_TEXTS.rus, result.text)).toBeLessThan(MAX_CER);
    });

    it('combines a system language with a bundled one', async () => {
      const result = await engine.recognize(await sample('rus', 'png'), 'rus+eng', job());
      expect(characterErrorRate(OCR_TEXTS.rus, result.text)).toBeLessThan(MAX_CER);
    });
  },
);

describe.skipIf(!hasTesseract)('OCR engine on the native tesseract binary', { timeout: 60_000 }, () => {
  let engine: OcrEngine;
  beforeAll(async () => {
    engine = await engineWith({ choice: 'tesseract' });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('names the binary and lists only the languages it has', () => {
    expect(engine.info).toEqual({ name: 'tesseract', version: tools.tesseract?.version });
    const codes = engine.languages().map((language) => language.code);
    expect(codes).toContain('eng');
    expect(codes).not.toContain('osd');
  });

  it.each(OCR_FORMATS)('reads English text from a %s image', async (format) => {
    const result = await engine.recognize(await sample('eng', format), 'eng', job());
    expect(characterErrorRate(OCR_TEXTS.eng, result.text)).toBeLessThan(MAX_CER);
    expect(result.confidence).toBeGreaterThan(50);
  });

  it.skipIf(!hasDebianRus)('reads Russian', async () => {
    const result = await engine.recognize(await sample('rus', 'png'), 'rus', job());
    expect(characterErrorRate(OCR_TEXTS.rus, result.text)).toBeLessThan(MAX_CER);
  });

  it.each(ENG_TEXT_IMAGES)('reads English from %s, written by other software', async (name) => {
    const image = { path: join(IMAGE_ASSETS, 'text', name), label: name };
    const result = await engine.recognize(image, 'eng', job());
    expect(characterErrorRate(OCR_TEXTS.eng, result.text)).toBeLessThan(MAX_CER);
  });

  it('reads every page of a multi-page TIFF, pages apart by a form feed', async () => {
    const image = { path: join(IMAGE_ASSETS, 'text', TWO_PAGE_TIFF), label: TWO_PAGE_TIFF };
    // eng only: deu may not be installed for the binary; page 2's German reads close enough to count.
    const pages = (await engine.recognize(image, 'eng', job())).text.split('\f');
    expect(pages).toHaveLength(2);
    expect(characterErrorRate(OCR_TEXTS.eng, pages[0] ?? '')).toBeLessThan(MAX_CER);
    expect(characterErrorRate(OCR_TEXTS.deu, pages[1] ?? '')).toBeLessThan(0.2);
  });

  it('refuses a PNG whose data is garbage', async () => {
    const error = await refusal(engine.recognize(await file(garbageImage(), 'garbage.png'), 'eng', job()));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toMatch(/could not be read as a PNG image/);
  });

  // Which languages the binary has depends on the Debian packs installed (tesseract-ocr-fra
  // made a fixed "French is missing" expectation fail), so the language it lacks is looked up.
  /** A bundled language with a sample that this machine's binary lacks, if any. */
  const lacking = () => {
    const native = new Set(engine.languages().map((language) => language.code));
    return OCR_LANGUAGES.find((code) => BUNDLED_CODES.has(code) && !native.has(code));
  };

  it('refuses a language the binary does not have', async (context) => {
    const code = lacking();
    if (code === undefined) {
      console.warn('the tesseract binary has every bundled sample language: nothing to refuse');
      context.skip();
      return;
    }
    const error = await refusal(engine.recognize(await sample('eng', 'png'), code, job()));
    expect(error).toBeInstanceOf(InvalidInputError);
  });

  it('with choice auto, runs languages it has natively and the rest on tesseract.js', async (context) => {
    const code = lacking();
    if (code === undefined) {
      console.warn('the tesseract binary has every bundled sample language: no job goes to tesseract.js');
      context.skip();
      return;
    }
    await withEngine({ choice: 'auto' }, async (auto, log) => {
      expect(auto.info.name).toBe('tesseract');
      const english = await auto.recognize(await sample('eng', 'png'), 'eng', job());
      expect(characterErrorRate(OCR_TEXTS.eng, english.text)).toBeLessThan(MAX_CER);
      // The native job had its image decoded by a process of no language.
      expect(log.count('OCR worker started')).toBe(1);
      const other = await auto.recognize(await sample(code, 'png'), code, job());
      expect(characterErrorRate(OCR_TEXTS[code], other.text)).toBeLessThan(MAX_CER);
      // The other language needed a tesseract.js process of its own.
      expect(log.count('OCR worker started')).toBe(2);
    });
  });

  it('reports a job that overruns its time as an internal error', async () => {
    await withEngine({ choice: 'tesseract', timeoutMs: 1 }, async (slow) => {
      const error = await refusal(slow.recognize(await sample('eng', 'png'), 'eng', job()));
      expect(error).toBeInstanceOf(InternalError);
      expect(error.message).toMatch(/did not finish within 1 ms/);
    });
  });
});
