// Child process of the memory scenario: uploads one large file from a path with
// the SDK and prints its own peak RSS, so the figure is the SDK's and not the bench's. Plain JavaScript
// run by plain `node`, so no TypeScript loader inflates the figure.
// Usage: node sdk-upload-probe.js <baseUrl> <apiKey> <path>
import { readFileSync } from 'node:fs';
import { fromPath, InvalidInputError, Pdn } from '@pdn/sdk';

const [baseUrl, apiKey, path] = process.argv.slice(2);
if (!baseUrl || !apiKey || !path) throw new Error('usage: sdk-upload-probe <baseUrl> <apiKey> <path>');

const pdn = new Pdn({ baseUrl, apiKey, maxRetries: 0 });
let outcome = 'accepted';
try {
  // Not an image, so the server reads the whole upload and then refuses it: the upload is what we measure.
  await pdn.ocr({ image: fromPath(path) });
} catch (error) {
  if (!(error instanceof InvalidInputError)) throw error;
  outcome = 'refused as not an image after the upload, as intended';
}
// The kernel's high-water mark of this process image. Not resourceUsage().maxRSS: Linux keeps that
// across exec, so it reports the spawning parent's size when that was larger (seen: the bench's 212 MB).
const peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
process.stdout.write(`${JSON.stringify({ maxRssBytes: peakKiB * 1024, outcome })}\n`);
