import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedFontPdf, photoPdf, textPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { hasCompositeFonts } from './font-survey.js';

const { qpdf } = await detectTools();
if (qpdf === undefined)
  console.warn('qpdf is not installed: the font survey tests are skipped (apt-get install qpdf)');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-fonts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(qpdf === undefined)('hasCompositeFonts', () => {
  // [name, bytes, want]
  it.each([
    ['text in a standard font', () => textPdf({ pages: 2 }), false],
    ['photos', () => photoPdf({ pages: 1 }), false],
    ['an embedded TrueType font (pdf-lib writes it as Type0)', () => embeddedFontPdf({ pages: 2 }), true],
  ] as const)('%s -> %s', { timeout: 60_000 }, async (name, bytes, want) => {
    const path = await writeFixture(dir, `${name.replaceAll(/\W/g, '-')}.pdf`, await bytes());
    const cwd = await mkdtemp(join(dir, 'job-'));
    if (qpdf === undefined) return;
    await expect(hasCompositeFonts(path, { qpdf, cwd, timeoutMs: 60_000 })).resolves.toBe(want);
  });
});
