// Where formidable writes an uploaded file (its `fileWriteStreamHandler`). formidable pauses the
// request for every chunk until that chunk's write has finished, so with Node's file stream each
// 64 KiB of body waited for a disk write before the next was read: a merge of 20 files, 2.8 MB,
// spent 30 to 65 ms in its upload on a machine whose writes take a few tenths of a millisecond
// (as the merge bench measured). Here a chunk is taken at once while less than BEHIND_BYTES wait for the
// disk, and the waiting chunks go out together (fs.WriteStream gathers them into one writev).
// A write that fails fails the stream: formidable then stops the parse with the error.
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';

/** What may wait for the disk per file before the parse is held back. */
const BEHIND_BYTES = 1024 * 1024;

export function uploadFileStream(path: string): Writable {
  const file = createWriteStream(path, { highWaterMark: BEHIND_BYTES });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (file.write(chunk)) done();
      else file.once('drain', () => done());
    },
    final(done) {
      // Done once every byte is written and the file closed, or with the error that stopped it.
      file.once('close', () => done(file.errored ?? undefined));
      file.end();
    },
    destroy(error, done) {
      file.destroy();
      done(error);
    },
  });
  file.on('error', (error) => stream.destroy(error));
  return stream;
}
