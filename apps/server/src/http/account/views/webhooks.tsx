// The webhooks page (openapi.yaml, "Webhooks"): the account's webhook secret, which signs every event
// sent to a job's callback_url, and a form to rotate it; then the latest deliveries, each with its
// receiving host, state, every attempt (when, the receiver's status and the start of its answer, or
// the network error) and the next retry, and a button to send a delivered or failed event again.
// Unlike an API key the secret is shown whenever asked: the server needs it in the clear to sign,
// and only its owner sees this page.
import type { AttemptRecord, DeliveryHistory } from '../../../webhooks/delivery-store.js';
import { CsrfField, Layout, Notice, type Viewer } from './layout.js';
import { SecretValue } from './secret-value.js';
import { fromNow, utc, When } from './time.js';

const NOTICES = {
  rotated:
    'The secret is rotated. Events are signed with the new one and, for 24 hours, with the old one too: update your receiver within that time.',
  sent: 'The event is on its way again, signed with your current secret.',
} as const;

function StateBadge(props: { delivery: DeliveryHistory; now: number }) {
  const { delivery, now } = props;
  if (delivery.state === 'waiting') return <span class="badge badge-waiting">waiting for the job</span>;
  if (delivery.state === 'delivered') return <span class="badge badge-live">delivered</span>;
  if (delivery.state === 'failed') return <span class="badge badge-failed">failed</span>;
  const next = delivery.nextAttemptAt;
  return (
    <span class="badge badge-test">
      {next === null || next <= now ? 'sending' : `next attempt ${fromNow(next, now)}`}
    </span>
  );
}

function Outcome(props: { attempt: AttemptRecord }) {
  const { result } = props.attempt;
  if ('error' in result) return <span>no answer: {result.error}</span>;
  return <span>answered {result.status}</span>;
}

function Attempts(props: { delivery: DeliveryHistory; now: number }) {
  const { delivery, now } = props;
  if (delivery.attemptLog.length === 0) return <p class="muted small">No attempt yet.</p>;
  return (
    <ol class="attempts">
      {delivery.attemptLog.map((attempt) => (
        <li key={String(attempt.number)}>
          <p>
            Attempt {attempt.number}, <When at={attempt.at} now={now} />: <Outcome attempt={attempt} />
          </p>
          {'status' in attempt.result && attempt.result.bodyStart !== '' && (
            <pre class="mono small answer">{attempt.result.bodyStart}</pre>
          )}
        </li>
      ))}
    </ol>
  );
}

function Deliveries(props: { viewer: Viewer; deliveries: DeliveryHistory[]; now: number }) {
  const { viewer, deliveries, now } = props;
  if (deliveries.length === 0)
    return (
      <p class="muted">No deliveries yet. They appear here once a job with a callback_url is submitted.</p>
    );
  return (
    <ul class="deliveries">
      {deliveries.map((delivery) => (
        <li key={delivery.jobId} class="delivery">
          <p class="delivery-head">
            <code>{delivery.jobId}</code> to <strong>{delivery.host}</strong>{' '}
            <StateBadge delivery={delivery} now={now} />
          </p>
          <p class="muted small">
            Submitted{' '}
            <time dateTime={new Date(delivery.createdAt).toISOString()}>{utc(delivery.createdAt)}</time>
            {delivery.eventId && (
              <>
                {' '}
                · event <code>{delivery.eventId}</code>
              </>
            )}
          </p>
          <Attempts delivery={delivery} now={now} />
          {(delivery.state === 'delivered' || delivery.state === 'failed') && (
            <form
              method="post"
              action={`/account/webhooks/deliveries/${encodeURIComponent(delivery.jobId)}/send-again`}
            >
              <CsrfField token={viewer.csrfToken} />
              <button type="submit">
                Send again<span class="visually-hidden"> the event of {delivery.jobId}</span>
              </button>
            </form>
          )}
        </li>
      ))}
    </ul>
  );
}

export function WebhooksPage(props: {
  viewer: Viewer;
  secret: string;
  deliveries: DeliveryHistory[];
  now: number;
  notice?: keyof typeof NOTICES | undefined;
}) {
  const { viewer, secret, deliveries, now } = props;
  return (
    <Layout title="Webhooks" viewer={viewer} section="webhooks">
      <h1>Webhooks</h1>
      <p class="lead">
        Submit a job with <code>Prefer: respond-async</code> and a <code>callback_url</code> field, and pdn
        POSTs an event there when it ends, signed in the <code>Pdn-Signature</code> header with this secret.
        Check it with the SDK's <code>verifyWebhook</code>.
      </p>
      {props.notice && <Notice kind="ok">{NOTICES[props.notice]}</Notice>}
      <section class="card">
        <h2>Signing secret</h2>
        <SecretValue id="webhook-secret" value={secret} />
      </section>
      <section class="card">
        <h2>Rotate the secret</h2>
        <p>
          Makes a new secret. The old one keeps signing beside it for 24 hours, so events are not lost while
          you switch.
        </p>
        <form method="post" action="/account/webhooks/rotate">
          <CsrfField token={viewer.csrfToken} />
          <button type="submit">Rotate secret</button>
        </form>
      </section>
      <section class="card">
        <h2>Recent deliveries</h2>
        <p class="muted small">
          Your latest 20 events, kept for a day after their job ends. A delivery is tried up to 7 times over
          about an hour until its receiver answers 2xx.
        </p>
        <Deliveries viewer={viewer} deliveries={deliveries} now={now} />
      </section>
    </Layout>
  );
}
