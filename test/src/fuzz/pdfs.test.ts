// Fuzz target: real PDFs of the corpus (packages/fixtures/corpus), mutated
// (mutations.ts: bit flips, truncation, splices, header, xref and trailer edits, /Count and /Length
// lies), through compress, split and merge on the default engines (Ghostscript, qpdf), and through
// compress on pdf-lib, the engine of machines without Ghostscript. Whatever the damage, every answer is
// a documented status with the envelope, never a 500; a 200's outputs read back with the pages it
// claims; the server keeps answering; nothing is left on disk.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CorpusFile, corpusFiles } from '../harness/corpus.js';
import { field, file, form } from '../harness/form.js';
import { filesLeftSince, listFiles } from '../harness/leftovers.js';
import { useServer } from '../harness/use-server.js';
import { fuzz, fuzzTimeoutMs } from './fuzz-run.js';
import { expectHealthy, judge } from './judge.js';
import { type Mutation, mutate, mutationArb } from './mutations.js';

/** The corpus files small enough that many runs fit the budget; big ones add time, not new damage. */
const MAX_BYTES = 100 * 1024;
let corpus: CorpusFile[];

beforeAll(async () => {
  corpus = (await corpusFiles()).filter((entry) => entry.bytes.length <= MAX_BYTES);
});

interface Input {
  /** Index into the corpus (its name is printed with a failure). */
  file: number;
  mutations: Mutation[];
}

type PdfCase =
  | { operation: 'compress'; input: Input; level: 'low' | 'medium' | 'high' }
  | { operation: 'split'; input: Input; ranges: string }
  | { operation: 'merge'; inputs: Input[] };

type Operation = PdfCase['operation'];

const caseArb = (operations: readonly Operation[]): fc.Arbitrary<PdfCase> => {
  const input: fc.Arbitrary<Input> = fc.record({
    file: fc.nat({ max: corpus.length - 1 }),
    mutations: fc.array(mutationArb(corpus.length, true), { minLength: 1, maxLength: 4 }),
  });
  const cases: Record<Operation, fc.Arbitrary<PdfCase>> = {
    compress: fc.record({
      operation: fc.constant('compress' as const),
      input,
      level: fc.constantFrom('low' as const, 'medium' as const, 'high' as const),
    }),
    split: fc.record({
      operation: fc.constant('split' as const),
      input,
      ranges: fc.constantFrom('1', '1-2', '2,1', '1,1'),
    }),
    merge: fc.record({
      operation: fc.constant('merge' as const),
      inputs: fc.array(
        fc.oneof(
          input,
          fc.record({ file: fc.nat({ max: corpus.length - 1 }), mutations: fc.constant<Mutation[]>([]) }),
        ),
        { minLength: 2, maxLength: 3 },
      ),
    }),
  };
  return fc.oneof(...operations.map((operation) => cases[operation]));
};

function bytesOf(input: Input): Buffer {
  const source = corpus[input.file];
  if (source === undefined) throw new Error(`no corpus file ${input.file}`);
  return mutate(
    source.bytes,
    input.mutations,
    corpus.map((entry) => entry.bytes),
  );
}

/** Names the corpus files a case uses, so its printed form says what was mutated. */
function named(value: PdfCase): string {
  const files = value.operation === 'merge' ? value.inputs.map((input) => input.file) : [value.input.file];
  return files.map((index) => corpus[index]?.name).join(', ');
}

// [engines, server environment, operations they take]
const targets: [string, Record<string, string>, Operation[]][] = [
  ['Ghostscript and qpdf', {}, ['compress', 'split', 'merge']],
  ['pdf-lib compress', { PDN_COMPRESS_ENGINE: 'pdf-lib' }, ['compress']],
];

describe.each(targets)('%s', (engines, env, operations) => {
  const ctx = useServer({ env });
  let key: string;
  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'fuzz-pdfs', plan: 'enterprise' });
  });

  it(
    'answers every mutated PDF with a documented status, never a 500',
    async () => {
      const before = await listFiles(ctx.server);
      await fuzz(`src/fuzz/pdfs.test.ts -t "${engines}"`, caseArb(operations), async (value) => {
        const upload = value.operation === 'merge' ? undefined : bytesOf(value.input);
        const parts =
          value.operation === 'merge'
            ? value.inputs.map((input, index) => file('files[]', bytesOf(input), `in-${index}.pdf`))
            : [file('file', upload ?? Buffer.alloc(0), 'mutated.pdf')];
        if (value.operation === 'compress') parts.push(field('level', value.level));
        if (value.operation === 'split') parts.push(field('ranges', value.ranges));
        const res = await ctx.call(`/api/v1/${value.operation}`, { key, body: form(...parts) });
        try {
          await judge(ctx, value.operation, res, upload);
          await expectHealthy(ctx);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n(corpus: ${named(value)})`, { cause: error });
        }
      });
      expect(await filesLeftSince(ctx.server, before)).toEqual([]);
    },
    fuzzTimeoutMs(),
  );
});
