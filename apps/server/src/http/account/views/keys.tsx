// The API keys page: the owner's active keys (name, live or test, a recognisable prefix,
// created, last used), a form to create one, and revocation behind a confirmation page. The full key
// appears on KeyCreatedPage only, once, right after it is made.
import { type ApiKeyRecord, KEY_NAME_MAX } from '../../../accounts/index.js';
import { CsrfField, Layout, Notice, type Viewer } from './layout.js';
import { SecretValue } from './secret-value.js';
import { utc, When } from './time.js';

function KindBadge(props: { kind: ApiKeyRecord['kind'] }) {
  return <span class={`badge badge-${props.kind}`}>{props.kind}</span>;
}

function KeyName(props: { name: string }) {
  return props.name === '' ? <span class="muted">(no name)</span> : <>{props.name}</>;
}

export function KeysPage(props: {
  viewer: Viewer;
  keys: ApiKeyRecord[];
  now: number;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { viewer, keys, now } = props;
  return (
    <Layout title="API keys" viewer={viewer} section="keys">
      <h1>API keys</h1>
      <p class="lead">
        Send a key in the <code>Authorization: Bearer &lt;key&gt;</code> header. Test keys have the same
        limits as live ones and are told apart in the logs.
      </p>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <section class="card">
        <h2>Your keys</h2>
        {keys.length === 0 ? (
          <p class="muted">No keys yet. Create one below.</p>
        ) : (
          <table class="keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td data-label="Name">
                    <KeyName name={key.name} />
                  </td>
                  <td data-label="Kind">
                    <KindBadge kind={key.kind} />
                  </td>
                  <td data-label="Key">
                    <code>{key.prefix}</code>
                  </td>
                  <td data-label="Created">
                    <time dateTime={new Date(key.createdAt).toISOString()}>{utc(key.createdAt)}</time>
                  </td>
                  <td data-label="Last used">
                    <When at={key.lastUsedAt} now={now} />
                  </td>
                  <td class="actions">
                    <a class="danger-link" href={`/account/keys/${encodeURIComponent(key.id)}/revoke`}>
                      Revoke<span class="visually-hidden"> {key.name || key.prefix}</span>
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card">
        <h2>Create a key</h2>
        <form method="post" action="/account/keys" class="create-key">
          <CsrfField token={viewer.csrfToken} />
          <label class="grow">
            Name
            <input name="name" required maxLength={KEY_NAME_MAX} placeholder="e.g. laptop, CI, billing job" />
          </label>
          <fieldset class="kind">
            <legend>Kind</legend>
            <label class="choice">
              <input type="radio" name="kind" value="live" checked /> Live
            </label>
            <label class="choice">
              <input type="radio" name="kind" value="test" /> Test
            </label>
          </fieldset>
          <button type="submit" class="primary">
            Create key
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function KeyCreatedPage(props: {
  viewer: Viewer;
  secret: string;
  record: ApiKeyRecord;
  /** Where the API is, for the "Try it" lines: without it the CLI calls its default address. */
  baseUrl: string;
}) {
  // Not `key`: Preact keeps that prop for itself.
  const { viewer, secret, record, baseUrl } = props;
  return (
    <Layout title="Your new API key" viewer={viewer} section="keys">
      <h1>Your new API key</h1>
      <section class="card">
        <p>
          <strong>
            <KeyName name={record.name} />
          </strong>{' '}
          <KindBadge kind={record.kind} />
        </p>
        <p class="notice notice-warn">
          Copy it now: this is the only time the whole key is shown. The server keeps only a hash of it.
        </p>
        <SecretValue id="new-key" value={secret} />
        <p class="muted small">Try it:</p>
        <pre class="mono small">
          <code>{`export PDN_API_KEY=${secret}\nexport PDN_BASE_URL=${baseUrl}\npdn status`}</code>
        </pre>
        <p>
          <a href="/account/keys">Done: back to your keys</a>
        </p>
      </section>
    </Layout>
  );
}

export function RevokePage(props: { viewer: Viewer; record: ApiKeyRecord }) {
  const { viewer, record } = props;
  return (
    <Layout title="Revoke a key" viewer={viewer} section="keys">
      <h1>Revoke this key?</h1>
      <section class="card">
        <p>
          <strong>
            <KeyName name={record.name} />
          </strong>{' '}
          <KindBadge kind={record.kind} /> <code>{record.prefix}</code>
        </p>
        <p>Every request made with it is refused from the next one on. This cannot be undone.</p>
        <form method="post" action={`/account/keys/${encodeURIComponent(record.id)}/revoke`} class="row">
          <CsrfField token={viewer.csrfToken} />
          <button type="submit" class="danger">
            Revoke key
          </button>
          <a href="/account/keys">Cancel</a>
        </form>
      </section>
    </Layout>
  );
}
