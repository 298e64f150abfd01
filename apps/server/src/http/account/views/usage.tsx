// Plan and usage: the same facts as GET /api/v1/account, and a chart of the last hour.
import { type Plan, planTitle, type Usage } from '../../../accounts/index.js';
import { Layout, type Viewer } from './layout.js';
import { fromNow, utc } from './time.js';
import { UsageChart } from './usage-chart.js';

export function UsagePage(props: {
  viewer: Viewer;
  plan: Plan;
  usage: Usage;
  counts: number[];
  now: number;
}) {
  const { viewer, plan, usage, counts, now } = props;
  const limited = usage.limit !== null;
  return (
    <Layout title="Plan and usage" viewer={viewer} section="usage">
      <h1>Plan and usage</h1>
      <section class="card">
        <div class="facts">
          <div class="fact">
            <span class="fact-name">Plan</span>
            <span class="fact-value">{planTitle(plan)}</span>
          </div>
          <div class="fact">
            <span class="fact-name">Requests per hour</span>
            <span class="fact-value">{limited ? usage.limit : 'Unlimited'}</span>
          </div>
          <div class="fact">
            <span class="fact-name">Used this hour</span>
            <span class="fact-value" data-testid="used">
              {usage.used}
            </span>
          </div>
          <div class="fact">
            <span class="fact-name">Left</span>
            <span class="fact-value" data-testid="remaining">
              {usage.remaining ?? 'Unlimited'}
            </span>
          </div>
        </div>
        {usage.limit !== null && (
          <meter
            class="meter"
            min={0}
            max={usage.limit}
            low={usage.limit * 0.5}
            high={usage.limit * 0.8}
            optimum={0}
            value={usage.used}
            aria-label="Share of the hourly limit used"
          />
        )}
        <p class="muted">
          {usage.nextSlotAt === null ? (
            'The window is empty: every request of the hour is available.'
          ) : (
            <>
              The next slot frees up at{' '}
              <time dateTime={new Date(usage.nextSlotAt).toISOString()}>{utc(usage.nextSlotAt)}</time> (
              {fromNow(usage.nextSlotAt, now)}), when the oldest request of the hour ages out.
            </>
          )}
        </p>
      </section>
      <section class="card">
        <h2>Requests in the last hour</h2>
        <UsageChart counts={counts} total={usage.used} now={now} />
        <p class="muted small">
          A rolling hour: each request counts for exactly 60 minutes. Checking with <code>pdn status</code> or{' '}
          <code>GET /api/v1/account</code> costs nothing. To change plan, ask the operator of this server.
        </p>
      </section>
    </Layout>
  );
}
