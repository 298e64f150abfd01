import { describe, expect, it } from 'vitest';
import { CpuSlots } from '../cpu-slots.js';
import type { DetectedTools } from '../tools.js';
import { createCompressEngine } from './index.js';

const gs = { path: '/usr/bin/gs', version: '10.00.0' };
const qpdf = { path: '/usr/bin/qpdf', version: '11.3.0' };

// [name, { given: choice and tools, want: engine name or start-up error }]
const table: [
  string,
  { given: ['auto' | 'ghostscript' | 'pdf-lib', DetectedTools]; want: string | RegExp },
][] = [
  ['auto with Ghostscript and qpdf', { given: ['auto', { ghostscript: gs, qpdf }], want: 'ghostscript' }],
  ['auto with Ghostscript alone', { given: ['auto', { ghostscript: gs }], want: 'ghostscript' }],
  ['auto without Ghostscript', { given: ['auto', { qpdf }], want: 'pdf-lib' }],
  ['pdf-lib forced with Ghostscript installed', { given: ['pdf-lib', { ghostscript: gs }], want: 'pdf-lib' }],
  ['ghostscript forced and installed', { given: ['ghostscript', { ghostscript: gs }], want: 'ghostscript' }],
  [
    'ghostscript forced but missing',
    { given: ['ghostscript', { qpdf }], want: /PDN_COMPRESS_ENGINE=ghostscript/ },
  ],
];

describe('createCompressEngine', () => {
  it.each(table)('%s', (_name, { given: [choice, tools], want }) => {
    const lines: string[] = [];
    const log = { info: (message: string) => lines.push(message), warn: () => {} };
    const create = () =>
      createCompressEngine({ choice, tools, cpuSlots: new CpuSlots(1), maxPages: 10, timeoutMs: 1000, log });
    if (want instanceof RegExp) {
      expect(create).toThrow(want);
      return;
    }
    expect(create().info.name).toBe(want);
    // Operators see the choice in the log (issue #3, as for merge/split in issue #2).
    expect(lines.join('\n')).toContain(`Compress engine: ${want}`);
  });
});
