// Checks that an operator's `.traineddata` file (PDN_TESSDATA_DIR) is one tesseract.js can initialise,
// by reading its table of contents only. This matters beyond a nicer error: when tesseract's Init fails,
// tesseract.js 7 rejects the pending job and then answers it a second time, which throws inside the
// worker's message handler and takes the whole server down (seen here with a corrupt file). So a file
// that would fail is skipped at start-up with a warning instead of being offered.
import { open } from 'node:fs/promises';
import type { EngineLog } from '../types.js';

// tesseract's TessdataManager::LoadMemBuffer: a u32 entry count (at most kMaxNumTessdataEntries = 1000),
// then that many i64 offsets, -1 for an absent component, little-endian as written on x86/ARM.
const MAX_ENTRIES = 1000;
// TessdataType TESSDATA_LSTM: tesseract.js runs the LSTM engine only (OEM 1), so a legacy-only file
// such as osd.traineddata cannot initialise.
const LSTM_ENTRY = 17;

/** Why `path` is not a usable LSTM traineddata file, or undefined when it is. */
export async function traineddataProblem(path: string): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const count = Buffer.alloc(4);
    if ((await file.read(count, 0, 4, 0)).bytesRead < 4) return 'it is too short to be traineddata';
    const entries = count.readUInt32LE(0);
    if (entries === 0 || entries > MAX_ENTRIES) return 'its table of contents is not traineddata';
    const table = Buffer.alloc(entries * 8);
    if ((await file.read(table, 0, table.length, 4)).bytesRead < table.length) return 'it is truncated';
    let previous = 4 + table.length;
    for (let entry = 0; entry < entries; entry += 1) {
      const offset = Number(table.readBigInt64LE(entry * 8));
      if (offset === -1) continue;
      if (offset < previous || offset > size) return 'its table of contents points outside the file';
      previous = offset;
    }
    if (entries <= LSTM_ENTRY || Number(table.readBigInt64LE(LSTM_ENTRY * 8)) === -1) {
      return 'it has no LSTM model (legacy-only data cannot be used)';
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * Says why a tessdata file is not offered. `osd.traineddata` (orientation and script detection) is
 * installed with Debian's tesseract-ocr and is no language: expected, nothing for an operator to fix,
 * so one info line rather than a warning at every start. Anything else is a warning.
 */
export function reportSkippedData(log: EngineLog, code: string, file: string, problem: string): void {
  if (code === 'osd') {
    log.info('OCR: osd.traineddata not offered (orientation and script detection data, not a language)', {
      file,
    });
  } else log.warn('OCR language skipped', { file, reason: problem });
}
