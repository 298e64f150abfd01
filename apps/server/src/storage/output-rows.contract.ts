// The OutputRows contract (STYLE.md 16), run on both databases by database/sqlite/sqlite.test.ts and
// database/postgres/postgres.test.ts: the rows under SmallOutputsInline, with the outputs folder as the
// store underneath, pass the OutputStore contract every output store passes, small outputs staying in
// the database and large ones going underneath, and any process reads what another one put.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../database/contract-harness.js';
import { T0 } from '../database/contract-harness.js';
import type { Stores } from '../database/stores.js';
import { FolderOutputStore } from './folder-output-store.js';
import { newOutputId } from './output-id.js';
import type { OutputRow } from './output-rows.js';
import { outputStoreContract } from './output-store.contract.js';
import { SmallOutputsInline } from './small-outputs-inline.js';

/** Small enough for the cases to cross it with a few bytes. */
const LIMIT = 64;

export function outputRowsContract(backend: Backend): void {
  const opened: Stores[] = [];
  let dataDir = '';

  async function open(): Promise<Stores> {
    const stores = opened.length === 0 ? await backend.open(() => T0) : await backend.openAgain(() => T0);
    opened.push(stores);
    return stores;
  }

  async function dispose(): Promise<void> {
    for (const stores of opened.splice(0).reverse()) await stores.close();
    await backend.dispose();
    await rm(dataDir, { recursive: true, force: true });
  }

  outputStoreContract({
    name: `${backend.name} rows, then the outputs folder`,
    async open() {
      dataDir = await mkdtemp(join(tmpdir(), 'pdn-output-rows-'));
      return new SmallOutputsInline(await FolderOutputStore.open(dataDir), (await open()).outputRows);
    },
    dispose,
  });

  describe(`OutputRows (${backend.name})`, () => {
    let folder: FolderOutputStore;
    let store: SmallOutputsInline;
    let work: string;
    beforeEach(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'pdn-output-rows-'));
      work = join(dataDir, 'work');
      folder = await FolderOutputStore.open(dataDir);
      store = new SmallOutputsInline(folder, (await open()).outputRows, LIMIT);
    });
    afterEach(dispose);

    async function file(bytes: Buffer): Promise<string> {
      await rm(work, { recursive: true, force: true });
      await mkdir(work, { recursive: true });
      const path = join(work, 'out.pdf');
      await writeFile(path, bytes);
      return path;
    }

    const bytesOf = async (opened: SmallOutputsInline | FolderOutputStore, key: string) => {
      const output = await opened.open(key);
      return output && (await buffer(output.body));
    };

    const cases: [string, { sizes: number[]; where: 'rows' | 'folder' }][] = [
      ['an output of the limit stays in the database', { sizes: [LIMIT], where: 'rows' }],
      ['an output past the limit goes to the store underneath', { sizes: [LIMIT + 1], where: 'folder' }],
      [
        'a job run again whose output grew leaves only the larger one',
        { sizes: [10, LIMIT + 1], where: 'folder' },
      ],
      [
        'a job run again whose output shrank is served the smaller one',
        { sizes: [LIMIT + 1, 10], where: 'rows' },
      ],
    ];
    it.each(cases)('%s', async (_, { sizes, where }) => {
      const key = newOutputId();
      let last = Buffer.alloc(0);
      for (const size of sizes) {
        last = randomBytes(size);
        await store.put(key, await file(last), { filename: 'merged.pdf', expiresAt: T0 + 1000 });
      }
      expect((await bytesOf(store, key))?.equals(last)).toBe(true);
      const inFolder = await bytesOf(folder, key);
      if (where === 'rows') expect(inFolder === undefined || !inFolder.equals(last)).toBe(true);
      else expect(inFolder?.equals(last)).toBe(true);
    });

    it("leaves a job's small outputs for its end, up to the limit in all, the rest underneath", async () => {
      const withEnd: OutputRow[] = [];
      const keys = [newOutputId(), newOutputId(), newOutputId()];
      const sizes = [LIMIT / 2, LIMIT / 2, 1];
      for (const [index, key] of keys.entries())
        await store.put(
          key,
          await file(randomBytes(sizes[index] ?? 0)),
          { filename: 'p.png', expiresAt: T0 + 1 },
          withEnd,
        );
      expect(withEnd.map((row) => row.meta.id)).toEqual(keys.slice(0, 2));
      // Left with the end, not stored: they open once the job's end stores them.
      expect(await store.open(keys[0] ?? '')).toBeUndefined();
      expect(await bytesOf(folder, keys[2] ?? '')).toHaveLength(1);
    });

    it('serves from another process what one put, with its name and expiry', async () => {
      const key = newOutputId();
      const bytes = Buffer.from('%PDF-1 small');
      const meta = await store.put(key, await file(bytes), { filename: 'Übersicht.pdf', expiresAt: T0 + 5 });
      const other = new SmallOutputsInline(folder, (await open()).outputRows, LIMIT);
      const output = await other.open(key);
      expect(output?.meta).toEqual(meta);
      expect(meta).toEqual({ id: key, filename: 'Übersicht.pdf', size: bytes.length, expiresAt: T0 + 5 });
      expect(output && (await buffer(output.body)).equals(bytes)).toBe(true);
    });

    it('sweeps the expired rows and objects together, and counts both', async () => {
      const small = newOutputId();
      const large = newOutputId();
      const kept = newOutputId();
      await store.put(small, await file(randomBytes(10)), { filename: 'a.pdf', expiresAt: T0 });
      await store.put(large, await file(randomBytes(LIMIT + 1)), { filename: 'b.pdf', expiresAt: T0 });
      await store.put(kept, await file(randomBytes(10)), { filename: 'c.pdf', expiresAt: T0 + 1 });
      expect(await store.sweep(T0)).toBe(2);
      expect(await store.open(small)).toBeUndefined();
      expect(await store.open(large)).toBeUndefined();
      expect(await bytesOf(store, kept)).toHaveLength(10);
    });
  });
}
