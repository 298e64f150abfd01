// Office to PDF (openapi.yaml operation `officeToPdf`): one Word, Excel, PowerPoint, OpenDocument or RTF
// document made a PDF by LibreOffice, with the options Gotenberg's users rely on (pages, landscape,
// PDF/A, PDF/UA, bookmarks). The engine recognises the document, runs the converter within the plan's
// budgets and counts the pages.
import type { OfficeToPdfResult, PdfaLevel } from '@pdn/api-types';
import type { OfficeBudget, OfficePdfEngine, OfficeRequest } from '../engines/office-pdf/index.js';
import { officePdfName } from './output-names.js';
import { labelled, type Operation, onlyInput } from './types.js';

export const PDFA_LEVELS: readonly PdfaLevel[] = ['pdfa-1b', 'pdfa-2b', 'pdfa-3b'];

export interface OfficeToPdfParams extends OfficeRequest {
  budget: OfficeBudget;
}

export function officeToPdfOperation(
  engine: OfficePdfEngine,
): Operation<OfficeToPdfParams, OfficeToPdfResult> {
  return {
    name: 'office_to_pdf',
    async run(inputs, { budget, ...request }, work, outputs) {
      const file = onlyInput(inputs);
      const output = await engine.toPdf(labelled(file), request, budget, work);
      const filename = officePdfName(file.name);
      return {
        filename,
        format: output.format,
        page_count: output.pageCount,
        pdfa: request.pdfa ?? null,
        size: output.size,
        download: await outputs.publish(output.path, filename, output.size),
      };
    },
    resign: (result, fresh) => ({ ...result, download: fresh(result.download) }),
  };
}
