// Page progress from OCRmyPDF: it prints nothing per page when not on a terminal, but
// OCRmyPDF 14 takes plugins (`--plugin file.py`), and its `get_progressbar_class` hook replaces the
// progress bar it drives (ocrmypdf/pluginspec.py; a plugin given on the command line is asked before the
// built-in tqdm). Ours ignores `disable` and writes one line per page to stderr, which the reader
// follows as OCRmyPDF runs. OCRmyPDF's page bar ("OCR", or "Image processing" without OCR) counts
// every page of the document twice (read, then grafted into the output: _sync.py update_page).

/** The plugin's source, written into the request's work folder for `--plugin`. */
export const PROGRESS_PLUGIN = `# pdn: one stderr line per page OCRmyPDF has finished (its page progress bar, replaced).
import sys

from ocrmypdf import hookimpl


class PageLines:
    def __init__(self, *args, total=None, desc=None, unit=None, **kwargs):
        self.pages = unit == 'page' and desc in ('OCR', 'Image processing')
        self.total = int(total or 0) // 2
        self.updates = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1, *, completed=None):
        if not self.pages:
            return
        before = self.updates // 2
        self.updates = completed if completed is not None else self.updates + n
        if self.updates // 2 > before:
            print(f'pdn-progress {self.updates // 2} {self.total}', file=sys.stderr, flush=True)


@hookimpl
def get_progressbar_class():
    return PageLines
`;

const LINE = /^pdn-progress (\d+) (\d+)$/;

/** Feeds on OCRmyPDF's stderr as it comes and calls `onPage(done, total)`, in the document's pages. */
export function followProgress(onPage: (done: number, total: number) => void): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const match = LINE.exec(line.trim());
      if (match) onPage(Number(match[1]), Number(match[2]));
    }
  };
}

/** OCRmyPDF's stderr without our progress lines, for the messages quoted to the client. */
export function withoutProgress(stderr: string): string {
  return stderr.replace(/^pdn-progress .*\n?/gm, '');
}
