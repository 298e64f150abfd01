// The small merge the job and idempotency scenarios time: two 1-page PDFs, as one multipart body.
import { labelledPdf } from '@pdn/fixtures';

export async function smallMergeForm(): Promise<FormData> {
  const body = new FormData();
  body.append('files[]', new Blob([await labelledPdf('a', 1)], { type: 'application/pdf' }), 'a.pdf');
  body.append('files[]', new Blob([await labelledPdf('b', 1)], { type: 'application/pdf' }), 'b.pdf');
  return body;
}
