// Reads back an output through its signed URL (no Authorization header, as the contract specifies), so
// tests check the document a client really gets, not just the JSON that describes it.
import { PDFDocument } from 'pdf-lib';
import { expect } from 'vitest';
import type { ServerContext } from './use-server.js';

export interface Downloaded {
  bytes: Buffer;
  /** The filename from Content-Disposition. */
  filename: string;
}

export async function download(ctx: ServerContext, url: string): Promise<Downloaded> {
  const res = await ctx.call(url);
  expect(res.status, `GET ${url}`).toBe(200);
  const disposition = res.headers.get('content-disposition') ?? '';
  const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? '';
  return { bytes: res.bytes, filename };
}

/** Page count as pdf-lib reads it: also proves the output parses. */
export async function pageCount(pdf: Uint8Array): Promise<number> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  return doc.getPageCount();
}
