// OCR of documents (issue #17): the sample scan made a searchable PDF, once as a call and once as a
// job with its progress in pages, both outputs downloaded; then the words of the same image with
// their boxes. In the repository's root, with the server running (it needs OCRmyPDF or tesseract):
//   PDN_API_KEY=pdn_test_... node examples/ocr-pdf.mjs
import { fromPath, Pdn } from '@pdn/sdk';

// The key comes from PDN_API_KEY, as the SDK reads it when `apiKey` is not given.
const pdn = new Pdn({ baseUrl: 'http://127.0.0.1:3000' });

const r = await pdn.ocrPdf({ file: fromPath('examples/scan.png'), rotate: true });
await pdn.download(r.download, `examples/${r.filename}`);
await pdn.download(r.text_download, `examples/${r.text_filename}`);
const [page] = r.pages;
console.log(
  `examples/${r.filename}: ${r.page_count} page(s), ${page.status}, ${page.confidence}% (${r.method})`,
);

const job = await pdn.jobs.submit('ocr_pdf', { file: fromPath('examples/scan.png'), output: 'pdf' });
const done = await job.wait({
  onProgress: (j) => j.progress && console.log(`job ${j.id}: ${j.progress.done}/${j.progress.total} pages`),
});
console.log(`job ${job.id}: ${done.pages_ocred} page(s) read, same text: ${done.text === r.text}`);

const { words } = await pdn.ocr({ image: fromPath('examples/scan.png'), detail: 'words' });
for (const w of words.slice(0, 3)) console.log(`${w.text} at ${w.left},${w.top} (${w.width}x${w.height})`);
