import { describe, expect, it } from 'vitest';
import { correctedRotation } from './orientation.js';

const osd = (orientation: number, confidence: number) =>
  `Page number: 0\nOrientation in degrees: ${orientation}\nRotate: ${(360 - orientation) % 360}\nOrientation confidence: ${confidence}\nScript: Latin\n`;

describe('correctedRotation (OCRmyPDF: (rotation - orientation) mod 360 when confident)', () => {
  const cases: [string, { report: string; rotation: number; want: number | undefined }][] = [
    ['upright page', { report: osd(0, 30), rotation: 0, want: undefined }],
    ['sideways, confident', { report: osd(90, 20), rotation: 0, want: 270 }],
    ['upside down on a page already turned', { report: osd(180, 20), rotation: 90, want: 270 }],
    ['below the threshold', { report: osd(90, 3.2), rotation: 0, want: undefined }],
    ['no report', { report: '', rotation: 0, want: undefined }],
  ];
  it.each(cases)('%s', (_, { report, rotation, want }) =>
    expect(correctedRotation(report, rotation)).toBe(want),
  );
});
