// The webhooks page (issue #14; openapi.yaml, "Webhooks"): the account's webhook secret, which signs
// every event sent to a job's callback_url, and a form to rotate it. Unlike an API key the secret is
// shown whenever asked: the server needs it in the clear to sign, and only its owner sees this page.
import { CsrfField, Layout, Notice, type Viewer } from './layout.js';
import { SecretValue } from './secret-value.js';

export function WebhooksPage(props: { viewer: Viewer; secret: string; rotated: boolean }) {
  const { viewer, secret } = props;
  return (
    <Layout title="Webhooks" viewer={viewer} section="webhooks">
      <h1>Webhooks</h1>
      <p class="lead">
        Submit a job with <code>Prefer: respond-async</code> and a <code>callback_url</code> field, and pdn
        POSTs an event there when it ends, signed in the <code>Pdn-Signature</code> header with this secret.
        Check it with the SDK's <code>verifyWebhook</code>.
      </p>
      {props.rotated && (
        <Notice kind="ok">
          The secret is rotated. Events are signed with the new one and, for 24 hours, with the old one too:
          update your receiver within that time.
        </Notice>
      )}
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
    </Layout>
  );
}
