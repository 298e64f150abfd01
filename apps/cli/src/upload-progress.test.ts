import { describe, expect, it } from 'vitest';
import { uploadProgress } from './upload-progress.js';

describe('uploadProgress', () => {
  const table: Array<[string, { given: { loaded: number; total: number | undefined }; want: string }]> = [
    [
      'part of a file',
      { given: { loaded: 1536, total: 3 * 1024 * 1024 }, want: 'uploading 1.5 KiB/3.0 MiB of' },
    ],
    ['a stream of unknown size', { given: { loaded: 2048, total: undefined }, want: 'uploading 2.0 KiB of' }],
    ['the whole body sent', { given: { loaded: 4096, total: 4096 }, want: 'compressing' }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const phases: string[] = [];
    uploadProgress((phase) => phases.push(phase), 'compressing')(given);
    expect(phases).toEqual([want]);
  });
});
