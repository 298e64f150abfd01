import { describe, expect, it } from 'vitest';
import { isPlan, type Plan, type PlanLimits, planLimits, planTitle } from './plans.js';

const MiB = 1024 * 1024;
const uploads = { free: 10 * MiB, premium: 100 * MiB, business: 250 * MiB, enterprise: 1024 * MiB };

describe('planLimits', () => {
  const table: [Plan, PlanLimits][] = [
    [
      'free',
      {
        requestsPerHour: 10,
        uploadBytes: 10 * MiB,
        pagesPerRequest: 2_000,
        compressPages: 100,
        ocrPages: 50,
        imagesPerRequest: 20,
        imagePixels: 16_000_000,
        renderPages: 100,
        htmlSeconds: 10,
        htmlPages: 100,
        officeSeconds: 30,
        officeMemoryBytes: 1024 * MiB,
        officePages: 100,
        unfinishedJobs: 5,
        syncCalls: 10,
        syncBytes: 40 * MiB,
      },
    ],
    [
      'premium',
      {
        requestsPerHour: 1000,
        uploadBytes: 100 * MiB,
        pagesPerRequest: 10_000,
        compressPages: 1_000,
        ocrPages: 500,
        imagesPerRequest: 100,
        imagePixels: 25_000_000,
        renderPages: 1_000,
        htmlSeconds: 30,
        htmlPages: 1_000,
        officeSeconds: 60,
        officeMemoryBytes: 1536 * MiB,
        officePages: 1_000,
        unfinishedJobs: 100,
        syncCalls: 20,
        syncBytes: 400 * MiB,
      },
    ],
    [
      'business',
      {
        requestsPerHour: 5000,
        uploadBytes: 250 * MiB,
        pagesPerRequest: 25_000,
        compressPages: 2_500,
        ocrPages: 2_000,
        imagesPerRequest: 250,
        imagePixels: 40_000_000,
        renderPages: 2_500,
        htmlSeconds: 60,
        htmlPages: 2_500,
        officeSeconds: 120,
        officeMemoryBytes: 2048 * MiB,
        officePages: 2_500,
        unfinishedJobs: 250,
        syncCalls: 50,
        syncBytes: 1000 * MiB,
      },
    ],
    [
      'enterprise',
      {
        requestsPerHour: null,
        uploadBytes: 1024 * MiB,
        pagesPerRequest: 100_000,
        compressPages: 5_000,
        ocrPages: 5_000,
        imagesPerRequest: 500,
        imagePixels: 40_000_000,
        renderPages: 5_000,
        htmlSeconds: 120,
        htmlPages: 5_000,
        officeSeconds: 300,
        officeMemoryBytes: 3072 * MiB,
        officePages: 5_000,
        unfinishedJobs: 1000,
        syncCalls: 100,
        syncBytes: 4096 * MiB,
      },
    ],
  ];
  it.each(table)('%s', (plan, want) => {
    expect(planLimits(plan, uploads)).toEqual(want);
  });

  it('takes upload caps from configuration', () => {
    expect(planLimits('free', { ...uploads, free: 5 }).uploadBytes).toBe(5);
  });
});

describe('isPlan and planTitle', () => {
  it.each([
    ['free', true],
    ['enterprise', true],
    ['Free', false],
    ['gold', false],
    ['', false],
  ] as const)('isPlan(%j) is %s', (given, want) => {
    expect(isPlan(given)).toBe(want);
  });

  it('titles a plan for messages', () => {
    expect(planTitle('business')).toBe('Business');
  });
});
