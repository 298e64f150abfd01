// Where formidable writes an uploaded file (its `fileWriteStreamHandler`). formidable pauses the
// request for every chunk until that chunk's write has finished, so with Node's file stream each
// 64 KiB of body waited for a disk write before the next was read: a merge of 20 files, 2.8 MB,
// spent 30 to 65 ms in its upload on a machine whose writes take a few tenths of a millisecond
// (as the merge bench measured). Here a chunk is taken at once while less than BEHIND_BYTES wait for the
// disk, and the waiting chunks go out together (fs.WriteStream gathers them into one writev).
// A file of at most HELD_BYTES, most of what synchronous calls upload, is held until its end and then
// written at once, synchronously, into the page cache: its open, write and close each waited for a
// libuv thread and then for the loop, 0.5 ms at the median and 3.5 ms at the 90th percentile on a
// loaded machine, on the call's way to its answer. Only a larger file opens a stream.
// A write that fails fails the stream: formidable then stops the parse with the error.
import { createWriteStream, type WriteStream, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';

/** What may wait for the disk per file before the parse is held back. */
const BEHIND_BYTES = 1024 * 1024;

/** A file up to this size is held in memory until its end: one file of a request at a time. */
const HELD_BYTES = 256 * 1024;

export function uploadFileStream(path: string): Writable {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let file: WriteStream | undefined;
  const openFile = (): WriteStream => {
    const opened = createWriteStream(path, { highWaterMark: BEHIND_BYTES });
    opened.on('error', (error) => stream.destroy(error));
    for (const chunk of held) opened.write(chunk);
    held = [];
    return opened;
  };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (file === undefined && heldBytes + chunk.length <= HELD_BYTES) {
        held.push(chunk);
        heldBytes += chunk.length;
        done();
        return;
      }
      file ??= openFile();
      if (file.write(chunk)) done();
      else file.once('drain', () => done());
    },
    final(done) {
      if (file === undefined) {
        try {
          writeFileSync(path, Buffer.concat(held));
          done();
        } catch (error) {
          done(error as Error);
        }
        return;
      }
      // Done once every byte is written and the file closed, or with the error that stopped it.
      const opened = file;
      opened.once('close', () => done(opened.errored ?? undefined));
      opened.end();
    },
    destroy(error, done) {
      file?.destroy();
      done(error);
    },
  });
  return stream;
}
