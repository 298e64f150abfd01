// The last hour's requests per minute as an SVG bar chart, drawn on the server (issue #12: no chart
// library, no CDN, readable without JavaScript). The label says the same in words for screen readers.

const WIDTH = 600;
const HEIGHT = 140;
const AXIS = 22;

export function UsageChart(props: { counts: number[]; total: number }) {
  const { counts, total } = props;
  const peak = Math.max(1, ...counts);
  const slot = WIDTH / Math.max(1, counts.length);
  const plot = HEIGHT - AXIS;
  const label = `Requests per minute over the last hour: ${total} in all, at most ${Math.max(0, ...counts)} in one minute.`;
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
      <title>{label}</title>
      <line x1="0" y1={plot} x2={WIDTH} y2={plot} class="chart-axis" />
      {[0.5, 1].map((level) => (
        <line
          key={level}
          x1="0"
          y1={plot - plot * level}
          x2={WIDTH}
          y2={plot - plot * level}
          class="chart-grid"
        />
      ))}
      <text x="2" y="12" class="chart-label">
        {peak}/min
      </text>
      {counts.map((count, index) => {
        const height = count === 0 ? 0 : Math.max(2, (count / peak) * (plot - 16));
        return count === 0 ? null : (
          <rect
            key={index}
            x={index * slot + slot * 0.15}
            y={plot - height}
            width={slot * 0.7}
            height={height}
            rx="1.5"
            class="chart-bar"
          />
        );
      })}
      <text x="0" y={HEIGHT - 5} class="chart-label">
        60 min ago
      </text>
      <text x={WIDTH / 2} y={HEIGHT - 5} class="chart-label" text-anchor="middle">
        30 min ago
      </text>
      <text x={WIDTH} y={HEIGHT - 5} class="chart-label" text-anchor="end">
        now
      </text>
    </svg>
  );
}
