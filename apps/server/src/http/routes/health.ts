// GET /healthz (openapi.yaml operation `health`): no auth, the engines chosen at start-up
// and the role the process plays (a worker serves it on its own port, beside /readyz and /metrics).
// A data folder out of space is `507 insufficient_storage` here too: every call
// that writes would fail, and a health check that says "ok" then misleads whoever routes traffic.
// `converters` says which optional converters this process found (openapi.yaml, "Converters").
import type { HealthResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { Converters } from '../../engines/converters.js';
import type { Engines } from '../../engines/types.js';
import type { Role } from '../../role.js';
import { insufficientStorage, type Storage } from '../../storage/index.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';

export function healthRoute(
  engines: Engines,
  storage: Pick<Storage, 'isFull'>,
  role: Role,
  converters: Converters,
): Middleware<AppState> {
  return async (ctx) => {
    if (await storage.isFull()) throw insufficientStorage();
    sendData<HealthResult>(ctx, {
      status: 'ok',
      role,
      engines: {
        pdf: engines.pdf.info,
        compress: engines.compress.info,
        ocr: engines.ocr.info,
        ocr_pdf: engines.ocrPdf.info,
      },
      converters,
    });
  };
}
