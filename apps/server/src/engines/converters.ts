// The document converters, each a tool a server may not have installed (openapi.yaml, "Converters"):
// Office to PDF runs LibreOffice, driven through Python's UNO bridge, HTML to PDF runs Chromium. Found
// at start-up with the other tools (tools.ts). /healthz says which are present; an operation whose
// converter is missing answers `501 converter_unavailable` naming the tool, from the process that runs
// the job, since in a scaled-out deployment that is where the tool must be.
import type { ConverterInfo, HealthResult } from '@pdn/api-types';
import { ConverterUnavailableError } from '../errors.js';
import type { DetectedTools, ToolInfo } from './tools.js';

export type Converters = HealthResult['converters'];
export type ConverterName = keyof Converters;

interface Converter {
  /** The tool as /healthz names it. */
  tool: string;
  /** The detected tools it runs, the first the one whose version /healthz shows. */
  needs: readonly [keyof DetectedTools, ...(keyof DetectedTools)[]];
  /** The operation, as a message names it. */
  operation: string;
  /** What it needs, as a message names it. */
  product: string;
}

const CONVERTERS: Readonly<Record<ConverterName, Converter>> = {
  office: {
    tool: 'libreoffice',
    needs: ['libreoffice', 'pyuno'],
    operation: 'Office to PDF',
    product: 'LibreOffice (soffice, with the Python UNO bridge python3-uno)',
  },
  html: { tool: 'chromium', needs: ['chromium'], operation: 'HTML to PDF', product: 'Chromium' },
};

function infoOf(converter: Converter, tools: DetectedTools): ConverterInfo {
  const available = converter.needs.every((name) => tools[name] !== undefined);
  const version = available ? (tools[converter.needs[0]]?.version ?? null) : null;
  return { available, tool: converter.tool, version };
}

/** What /healthz shows of each converter. */
export function convertersOf(tools: DetectedTools): Converters {
  return { office: infoOf(CONVERTERS.office, tools), html: infoOf(CONVERTERS.html, tools) };
}

/**
 * The converter's tool (LibreOffice's soffice, Chromium), or the 501 naming what `name` needs where
 * `tools` (this process's) lack any of it.
 */
export function requireConverter(tools: DetectedTools, name: ConverterName): ToolInfo {
  const converter = CONVERTERS[name];
  const tool = tools[converter.needs[0]];
  if (tool !== undefined && infoOf(converter, tools).available) return tool;
  throw new ConverterUnavailableError(
    `${converter.operation} needs ${converter.product}, which is not installed on this server; ` +
      'GET /healthz lists the converters it has.',
  );
}
