// PDF/A-2b for the native engine (`output=pdfa`): Ghostscript's pdfwrite with -dPDFA=2, the
// route OCRmyPDF 14 takes (its _exec/ghostscript.py generate_pdfa, with the pdfmark stub of its pdfa.py),
// the OutputIntent an sRGB profile from Debian's ghostscript. Ghostscript writes the XMP identification
// (pdfaid part 2, conformance B) itself. Unlike OCRmyPDF, which lets Ghostscript's automatic filter pick
// JPEG for any image, nothing is re-encoded lossily: JPEGs pass through as they are, every other image
// is written with Flate, nothing is downsampled; the pages render as before (tested).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { runGhostscript } from '../compress/ghostscript.js';
import type { ToolInfo } from '../tools.js';
import type { WorkContext } from '../types.js';

/** Where Debian's ghostscript (and colord) put an sRGB profile. */
const SRGB_PROFILES = ['/usr/share/color/icc/ghostscript/srgb.icc', '/usr/share/color/icc/sRGB.icc'];

/** The sRGB profile this machine has, if any: without one there is no OutputIntent, so no PDF/A. */
export function srgbProfile(): string | undefined {
  return SRGB_PROFILES.find((path) => existsSync(path));
}

/** The pdfmark stub declaring the OutputIntent, the profile inline (as hex) so -dSAFER reads no other file. */
function outputIntentStub(profile: Buffer): string {
  return [
    '%!',
    `/ICCProfile <${profile.toString('hex')}> def`,
    '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
    '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
    '[{icc_PDFA} ICCProfile /PUT pdfmark',
    '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
    '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA} ' +
      '/OutputConditionIdentifier (sRGB) >> /PUT pdfmark',
    '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
    '',
  ].join('\n');
}

export interface PdfaRun {
  gs: ToolInfo;
  profile: string;
  timeoutMs: number;
}

/** Writes `input` as PDF/A-2b into `output` (a name in the job's folder) and returns its path. */
export async function convertToPdfa(
  input: string,
  output: string,
  run: PdfaRun,
  job: WorkContext,
): Promise<string> {
  const stub = join(job.workDir, 'pdfa.ps');
  await writeFile(stub, outputIntentStub(await readFile(run.profile)));
  const noDownsampling = ['Color', 'Gray', 'Mono'].map((kind) => `-dDownsample${kind}Images=false`);
  const args = [
    '-dBATCH',
    '-dNOPAUSE',
    '-dSAFER',
    '-sDEVICE=pdfwrite',
    '-dAutoRotatePages=/None',
    '-sColorConversionStrategy=LeaveColorUnchanged',
    '-dPassThroughJPEGImages=true',
    '-dAutoFilterColorImages=false',
    '-dColorImageFilter=/FlateEncode',
    '-dAutoFilterGrayImages=false',
    '-dGrayImageFilter=/FlateEncode',
    ...noDownsampling,
    '-dPDFA=2',
    '-dPDFACompatibilityPolicy=1',
    '-o',
    output,
    stub,
    resolve(input),
  ];
  const { failure } = await runGhostscript({ gs: run.gs, args, timeoutMs: run.timeoutMs }, job);
  const path = resolve(job.workDir, output);
  if (failure !== undefined || !existsSync(path))
    throw new InternalError(`Ghostscript could not write PDF/A: ${failure ?? 'no output'}`);
  return path;
}
