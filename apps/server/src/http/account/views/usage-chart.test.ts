import { render } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { UsageChart } from './usage-chart.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

function chart(counts: number[]): string {
  return render(UsageChart({ counts, total: counts.reduce((a, b) => a + b, 0), now: NOW }));
}

describe('UsageChart', () => {
  it('draws one bar per busy minute, the tallest full height, each titled with its minute', () => {
    const counts = new Array<number>(60).fill(0);
    counts[0] = 2;
    counts[59] = 4;
    const svg = chart(counts);
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain('<title>11:00 UTC: 2 requests</title>');
    expect(svg).toContain('<title>11:59 UTC: 4 requests</title>');
    expect(svg).toMatch(/y="4" width="[\d.]+" height="96"/);
    expect(svg).toContain(
      'aria-label="Requests per minute over the last hour: 6 in all, at most 4 in one minute."',
    );
  });

  it('draws an empty hour without bars', () => {
    const svg = chart(new Array<number>(60).fill(0));
    expect(svg).not.toContain('<rect');
    expect(svg).toContain('0 per minute at most');
  });
});
