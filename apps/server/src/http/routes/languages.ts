// GET /api/v1/languages (openapi.yaml operation `listLanguages`).
import type { LanguagesResult } from '@pdn/api-types';
import type { Middleware } from 'koa';
import type { OcrEngine } from '../../engines/types.js';
import { DEFAULT_LANGUAGE } from '../../operations/index.js';
import { sendData } from '../respond.js';
import type { AppState } from '../state.js';

export function languagesRoute(engine: OcrEngine): Middleware<AppState> {
  return (ctx) => {
    sendData<LanguagesResult>(ctx, { default: DEFAULT_LANGUAGE, languages: [...engine.languages()] });
  };
}
