import { describe, expect, it } from 'vitest';
import { CpuSlots } from '../cpu-slots.js';
import { tempFolders } from '../temp-folders.js';
import type { DetectedTools } from '../tools.js';
import { createCompressEngine } from './index.js';

const gs = { path: '/usr/bin/gs', version: '10.00.0' };
const qpdf = { path: '/usr/bin/qpdf', version: '11.3.0' };

type Level = 'info' | 'warn';

// [name, { given: choice and tools, want: engine name and the level its start-up line is logged at, or start-up error }]
const table: [
  string,
  { given: ['auto' | 'ghostscript' | 'pdf-lib', DetectedTools]; want: [string, Level] | RegExp },
][] = [
  [
    'auto with Ghostscript and qpdf',
    { given: ['auto', { ghostscript: gs, qpdf }], want: ['ghostscript', 'info'] },
  ],
  // What `auto` would have used is missing: a warning.
  ['auto with Ghostscript alone', { given: ['auto', { ghostscript: gs }], want: ['ghostscript', 'warn'] }],
  ['auto without Ghostscript', { given: ['auto', { qpdf }], want: ['pdf-lib', 'warn'] }],
  [
    'pdf-lib forced with Ghostscript installed',
    { given: ['pdf-lib', { ghostscript: gs }], want: ['pdf-lib', 'info'] },
  ],
  [
    'ghostscript forced and installed',
    { given: ['ghostscript', { ghostscript: gs }], want: ['ghostscript', 'info'] },
  ],
  [
    'ghostscript forced but missing',
    { given: ['ghostscript', { qpdf }], want: /PDN_COMPRESS_ENGINE=ghostscript/ },
  ],
];

describe('createCompressEngine', () => {
  it.each(table)('%s', (_name, { given: [choice, tools], want }) => {
    const lines: string[] = [];
    const at = (level: Level) => (message: string) => lines.push(`${level} ${message}`);
    const log = { info: at('info'), warn: at('warn') };
    const create = () =>
      createCompressEngine({
        choice,
        tools,
        cpuSlots: new CpuSlots(1),
        maxPages: 10,
        timeoutMs: 1000,
        folders: tempFolders,
        log,
      });
    if (want instanceof RegExp) {
      expect(create).toThrow(want);
      return;
    }
    const [name, level] = want;
    expect(create().info.name).toBe(name);
    // Operators see the choice in the log, as they do for merge and split.
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^${level} Compress engine: ${name} `))]);
  });
});
