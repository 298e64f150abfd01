// The small merge the job, idempotency and shared-backend scenarios time: two small PDFs, as one
// multipart body, and one merge's wall time.
import { labelledPdf } from '@pdn/fixtures';

/** Two PDFs of `pages` pages each; the form can be sent again and again. */
export async function smallMergeForm(pages = 1): Promise<FormData> {
  const body = new FormData();
  body.append('files[]', new Blob([await labelledPdf('a', pages)], { type: 'application/pdf' }), 'a.pdf');
  body.append('files[]', new Blob([await labelledPdf('b', pages)], { type: 'application/pdf' }), 'b.pdf');
  return body;
}

/** One merge's wall time, request sent to answer read. */
export async function timedMerge(baseUrl: string, key: string, body: FormData): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${baseUrl}/api/v1/merge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body,
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`merge answered ${response.status}`);
  return performance.now() - start;
}
