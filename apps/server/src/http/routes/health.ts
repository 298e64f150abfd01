// GET /healthz (openapi.yaml operation `health`; issue #2): no auth, the engines chosen at start-up.
import type { HealthResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { Engines } from '../../engines/types.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';

export function healthRoute(engines: Engines): Middleware<AppState> {
  return (ctx) => {
    sendData<HealthResult>(ctx, {
      status: 'ok',
      engines: { pdf: engines.pdf.info, compress: engines.compress.info, ocr: engines.ocr.info },
    });
  };
}
