// OCR of documents: the sample scan, German text, made a searchable PDF, once as a call and once as a
// job with its progress in pages, both outputs downloaded; then the words of the same image with
// their boxes. In the repository's root, with the server running (it needs OCRmyPDF or tesseract):
//   PDN_API_KEY=pdn_test_... node examples/ocr-pdf.mjs
import { fromPath, InvalidInputError, Pdn } from '@pdn/sdk';

// The key comes from PDN_API_KEY and the server from PDN_BASE_URL (else http://127.0.0.1:3000), as
// the SDK reads them when they are not given.
const pdn = new Pdn();
const scan = () => fromPath('examples/scan.png');

// Documents are read by the server's native tools, which know German only with its data installed
// (Debian: tesseract-ocr-deu); without it the server refuses `deu`, and the scan is read as English,
// which gets most of its letters but not the umlauts.
let language = 'deu';
let r;
try {
  r = await pdn.ocrPdf({ file: scan(), language, rotate: true });
} catch (error) {
  if (!(error instanceof InvalidInputError) || !/language/.test(error.message)) throw error;
  console.log(`German: ${error.message}; reading the scan as English`);
  language = 'eng';
  r = await pdn.ocrPdf({ file: scan(), language, rotate: true });
}
await pdn.download(r.download, `examples/${r.filename}`);
await pdn.download(r.text_download, `examples/${r.text_filename}`);
const [page] = r.pages;
console.log(
  `examples/${r.filename}: ${r.page_count} page(s), ${page.status}, ${page.confidence}% (${r.method}, ${r.language})`,
);

const job = await pdn.jobs.submit('ocr_pdf', { file: scan(), language, output: 'pdf' });
const done = await job.wait({
  onProgress: (j) => j.progress && console.log(`job ${j.id}: ${j.progress.done}/${j.progress.total} pages`),
});
console.log(`job ${job.id}: ${done.pages_ocred} page(s) read, same text: ${done.text === r.text}`);

// Images are read with the languages the server bundles, German among them.
const { words } = await pdn.ocr({ image: scan(), language: 'deu', detail: 'words' });
for (const w of words.slice(0, 3)) console.log(`${w.text} at ${w.left},${w.top} (${w.width}x${w.height})`);
