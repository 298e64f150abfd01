// `npm run bench`: starts the real server on port 0 with a temp data folder and an Enterprise key,
// generates the corpus, runs every scenario against its baselines in this one run and writes
// bench/results.md and bench/results.json. `--quick` runs every scenario but those that start
// deployments of their own (Scenario.fullOnly) once on small inputs, as the CI smoke test, and writes
// nothing. `--only <name>` runs the scenarios whose name contains <name>, in either profile.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from '@pdn/e2e/harness';
import { Pdn } from '@pdn/sdk';
import { ADMIT_ALL } from './admit-all.js';
import type { BenchContext, Scenario } from './context.js';
import { buildCorpus } from './corpus.js';
import { describeMachine } from './machine.js';
import { FULL, QUICK } from './profile.js';
import { type Results, toMarkdown, writeResults } from './report.js';
import { backendCostScenario } from './scenarios/backend-cost.js';
import { compressionScenarios } from './scenarios/compression.js';
import { compressionCheckScenario } from './scenarios/compression-check.js';
import { compressionRealWorldScenario } from './scenarios/compression-real-world.js';
import { htmlToPdfScenario } from './scenarios/html-to-pdf.js';
import { idempotencyScenario } from './scenarios/idempotency.js';
import { imagesToPdfScenario } from './scenarios/images-to-pdf.js';
import { jobsScenario } from './scenarios/jobs.js';
import { killedServerScenario } from './scenarios/killed-server.js';
import { lostAnswersScenario } from './scenarios/lost-answers.js';
import { memoryScenario, ocrSoakScenario } from './scenarios/memory.js';
import { mergeSplitScenario } from './scenarios/merge-split.js';
import { observabilityScenario } from './scenarios/observability-cost.js';
import { ocrScenario } from './scenarios/ocr.js';
import { ocrPdfScenario } from './scenarios/ocr-pdf.js';
import { officeToPdfScenario } from './scenarios/office-to-pdf.js';
import { pdfToImagesScenario } from './scenarios/pdf-to-images.js';
import { responsivenessScenario } from './scenarios/responsiveness.js';
import { scaleOutScenario } from './scenarios/scale-out.js';
import { sharedBackendsScenario } from './scenarios/shared-backends.js';
import { sharedLatencyScenario } from './scenarios/shared-latency.js';
import { sharingScenario } from './scenarios/sharing.js';
import { signInFloodScenario } from './scenarios/sign-in-flood.js';
import { webhookDelayScenario } from './scenarios/webhook-delay.js';

const SCENARIOS: Scenario[] = [
  ...compressionScenarios,
  compressionRealWorldScenario,
  compressionCheckScenario,
  mergeSplitScenario,
  ocrScenario,
  ocrPdfScenario,
  officeToPdfScenario,
  imagesToPdfScenario,
  pdfToImagesScenario,
  htmlToPdfScenario,
  responsivenessScenario,
  memoryScenario,
  ocrSoakScenario,
  sharedBackendsScenario,
  backendCostScenario,
  sharedLatencyScenario,
  jobsScenario,
  idempotencyScenario,
  scaleOutScenario,
  sharingScenario,
  observabilityScenario,
  signInFloodScenario,
  killedServerScenario,
  webhookDelayScenario,
  lostAnswersScenario,
];

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, only: { type: 'string' } } });
const profile = values.quick ? QUICK : FULL;
const selected = SCENARIOS.filter((scenario) =>
  values.only ? scenario.name.includes(values.only) : !(values.quick && scenario.fullOnly),
);

const started = performance.now();
const workDir = await mkdtemp(join(tmpdir(), 'pdn-bench-'));
const server = await startServer({ env: ADMIT_ALL });
try {
  const apiKey = await server.createKey({ user: 'bench', plan: 'enterprise' });
  process.stderr.write(`bench (${profile.name}): server at ${server.baseUrl}, generating the corpus…\n`);
  const context: BenchContext = {
    profile,
    server,
    apiKey,
    pdn: new Pdn({ baseUrl: server.baseUrl, apiKey, maxRetries: 0 }),
    corpus: await buildCorpus(workDir, profile),
    workDir,
  };
  const results: Results = {
    profile: profile.name,
    date: new Date().toISOString(),
    durationSeconds: 0,
    machine: await describeMachine(),
    rows: [],
    details: [],
  };
  for (const scenario of selected) {
    process.stderr.write(`bench: ${scenario.name}…\n`);
    const scenarioStarted = performance.now();
    const outcome = await scenario.run(context);
    // Each scenario's time, so CI's log shows where the smoke run's minutes go.
    const seconds = ((performance.now() - scenarioStarted) / 1000).toFixed(1);
    process.stderr.write(`bench: ${scenario.name} took ${seconds} s\n`);
    results.rows.push(...outcome.rows);
    results.details.push(...(outcome.details ?? []));
  }
  results.durationSeconds = Math.round((performance.now() - started) / 1000);
  if (profile.name === 'full' && !values.only) {
    const here = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url));
    await writeResults(results, here('results.md'), here('results.json'));
    process.stderr.write('bench: wrote bench/results.md and bench/results.json\n');
  }
  process.stdout.write(`${toMarkdown(results)}\n`);
} finally {
  await server.stop();
  await rm(workDir, { recursive: true, force: true });
}
