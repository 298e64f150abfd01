// The last hour's requests per minute as an SVG bar chart, drawn on the server (no chart
// library, no CDN, readable without JavaScript). The bars stretch to the width available; the labels
// are HTML beside the SVG, so they stay legible on a phone. The chart's label says the same in words
// for screen readers, and each bar's title gives its minute and count to a pointer.
import { utc } from './time.js';

const WIDTH = 600;
const HEIGHT = 100;

export function UsageChart(props: { counts: number[]; total: number; now: number }) {
  const { counts, total, now } = props;
  const peak = Math.max(0, ...counts);
  const scale = Math.max(1, peak);
  const slot = WIDTH / Math.max(1, counts.length);
  const slotMs = (60 * 60_000) / Math.max(1, counts.length);
  const label = `Requests per minute over the last hour: ${total} in all, at most ${peak} in one minute.`;
  return (
    <figure class="chart">
      <div class="chart-peak muted small" aria-hidden="true">
        {peak} per minute at most
      </div>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={label}>
        <line x1="0" y1={HEIGHT / 2} x2={WIDTH} y2={HEIGHT / 2} class="chart-grid" />
        <line x1="0" y1="1" x2={WIDTH} y2="1" class="chart-grid" />
        {counts.map((count, index) => {
          if (count === 0) return null;
          const height = Math.max(3, (count / scale) * (HEIGHT - 4));
          const minute = utc(now - (counts.length - index) * slotMs).slice(11);
          return (
            <rect
              key={index}
              x={index * slot + slot * 0.12}
              y={HEIGHT - height}
              width={slot * 0.76}
              height={height}
              class="chart-bar"
            >
              <title>{`${minute}: ${count} ${count === 1 ? 'request' : 'requests'}`}</title>
            </rect>
          );
        })}
        <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} class="chart-axis" />
      </svg>
      <figcaption class="chart-times muted small" aria-hidden="true">
        <span>60 min ago</span>
        <span>30 min ago</span>
        <span>now</span>
      </figcaption>
    </figure>
  );
}
