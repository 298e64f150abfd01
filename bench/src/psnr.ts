// Quality figure for compression outputs: PSNR of page 1 rendered at 100 dpi
// with pdftoppm, against the original's render. Higher is better; identical renders are Infinity.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Pixmap {
  width: number;
  height: number;
  pixels: Buffer;
}

/** Parses a binary PPM (P6, maxval 255), the format pdftoppm writes by default. */
function parsePpm(bytes: Buffer): Pixmap {
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('not a P6 PPM with maxval 255');
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, pixels: bytes.subarray(header[0].length, header[0].length + width * height * 3) };
}

export async function renderFirstPage(pdfPath: string, dpi = 100): Promise<Pixmap> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-bench-render-'));
  try {
    const prefix = join(dir, 'page');
    await run('pdftoppm', ['-r', String(dpi), '-f', '1', '-l', '1', '-singlefile', pdfPath, prefix]);
    return parsePpm(await readFile(`${prefix}.ppm`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function psnr(reference: Pixmap, candidate: Pixmap): number {
  if (reference.width !== candidate.width || reference.height !== candidate.height) {
    throw new Error(
      `page sizes differ: ${reference.width}x${reference.height} vs ${candidate.width}x${candidate.height}`,
    );
  }
  let squaredError = 0;
  for (let i = 0; i < reference.pixels.length; i++) {
    const difference = (reference.pixels[i] as number) - (candidate.pixels[i] as number);
    squaredError += difference * difference;
  }
  const mse = squaredError / reference.pixels.length;
  return mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse);
}
