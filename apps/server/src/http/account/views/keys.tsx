// The API keys page: the owner's active keys (name, live or test, a recognisable prefix,
// created, last used, and when a rolled key stops working), a form to create one, and for each key
// rename, roll (a new secret, the old one kept for a chosen grace) and revoke, each on a page of its
// own. A full key appears once only, on the page answering the form that made it.
import { type ApiKeyRecord, KEY_NAME_MAX } from '../../../accounts/index.js';
import { CsrfField, Layout, Notice, type Viewer } from './layout.js';
import { SecretValue } from './secret-value.js';
import { fromNow, utc, When } from './time.js';

/** The graces a rolled key's owner may choose, in the order offered; the default is a day. */
export const ROLL_GRACES = [
  { value: 'none', label: 'None: stop the old key now', ms: 0 },
  { value: '1h', label: '1 hour', ms: 60 * 60_000 },
  { value: '24h', label: '24 hours', ms: 24 * 60 * 60_000 },
  { value: '7d', label: '7 days', ms: 7 * 24 * 60 * 60_000 },
] as const;
export const DEFAULT_GRACE = '24h';

/** Where a key's own pages are: `/account/keys/<id>/<action>`. */
const keyPath = (record: ApiKeyRecord, action: 'rename' | 'roll' | 'revoke') =>
  `/account/keys/${encodeURIComponent(record.id)}/${action}`;

function Expiry(props: { at: number; now: number }) {
  return (
    <span class="badge badge-expiring">
      expires{' '}
      <time dateTime={new Date(props.at).toISOString()} title={utc(props.at)}>
        {fromNow(props.at, props.now)}
      </time>
    </span>
  );
}

function KeyTitle(props: { record: ApiKeyRecord }) {
  const { record } = props;
  return (
    <p>
      <strong>
        <KeyName name={record.name} />
      </strong>{' '}
      <KindBadge kind={record.kind} /> <code>{record.prefix}</code>
    </p>
  );
}

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
                    <span>
                      <KeyName name={key.name} />
                      {key.expiresAt !== null && (
                        <>
                          {' '}
                          <Expiry at={key.expiresAt} now={now} />
                        </>
                      )}
                    </span>
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
                    <a href={keyPath(key, 'rename')}>
                      Rename<span class="visually-hidden"> {key.name || key.prefix}</span>
                    </a>
                    {key.expiresAt === null && (
                      <a href={keyPath(key, 'roll')}>
                        Roll<span class="visually-hidden"> {key.name || key.prefix}</span>
                      </a>
                    )}
                    <a class="danger-link" href={keyPath(key, 'revoke')}>
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
  /** For a rolled key: the key it replaces, and when that one stops working. */
  replaces?: ApiKeyRecord | undefined;
  now?: number;
}) {
  // Not `key`: Preact keeps that prop for itself.
  const { viewer, secret, record, baseUrl, replaces } = props;
  const title = replaces ? 'Your rolled API key' : 'Your new API key';
  return (
    <Layout title={title} viewer={viewer} section="keys">
      <h1>{title}</h1>
      <section class="card">
        <p>
          <strong>
            <KeyName name={record.name} />
          </strong>{' '}
          <KindBadge kind={record.kind} />
        </p>
        {replaces && <Replaced record={replaces} now={props.now ?? Date.now()} />}
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

function Replaced(props: { record: ApiKeyRecord; now: number }) {
  const { record, now } = props;
  const until = record.expiresAt;
  return (
    <p>
      It replaces <code>{record.prefix}</code>
      {until === null || until <= now ? (
        ', which no longer works.'
      ) : (
        <>
          , which keeps working until <time dateTime={new Date(until).toISOString()}>{utc(until)}</time> (
          {fromNow(until, now)}): move every client to the new key before then.
        </>
      )}
    </p>
  );
}

export function RenamePage(props: { viewer: Viewer; record: ApiKeyRecord; error?: string | undefined }) {
  const { viewer, record } = props;
  return (
    <Layout title="Rename a key" viewer={viewer} section="keys">
      <h1>Rename this key</h1>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <section class="card">
        <KeyTitle record={record} />
        <form method="post" action={keyPath(record, 'rename')} class="create-key">
          <CsrfField token={viewer.csrfToken} />
          <label class="grow">
            New name
            <input name="name" required maxLength={KEY_NAME_MAX} value={record.name} />
          </label>
          <button type="submit" class="primary">
            Rename key
          </button>
          <a href="/account/keys">Cancel</a>
        </form>
      </section>
    </Layout>
  );
}

export function RollPage(props: { viewer: Viewer; record: ApiKeyRecord }) {
  const { viewer, record } = props;
  return (
    <Layout title="Roll a key" viewer={viewer} section="keys">
      <h1>Roll this key?</h1>
      <section class="card">
        <KeyTitle record={record} />
        <p>
          Rolling makes a new secret under the same name and kind, shown once. The old secret can keep working
          for a while, so that you can move every client to the new one first.
        </p>
        <form method="post" action={keyPath(record, 'roll')}>
          <CsrfField token={viewer.csrfToken} />
          <fieldset class="graces">
            <legend>Keep the old secret working for</legend>
            {ROLL_GRACES.map((grace) => (
              <label class="choice" key={grace.value}>
                <input
                  type="radio"
                  name="grace"
                  value={grace.value}
                  checked={grace.value === DEFAULT_GRACE}
                />{' '}
                {grace.label}
              </label>
            ))}
          </fieldset>
          <div class="row">
            <button type="submit" class="primary">
              Roll key
            </button>
            <a href="/account/keys">Cancel</a>
          </div>
        </form>
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
        <KeyTitle record={record} />
        <p>Every request made with it is refused from the next one on. This cannot be undone.</p>
        <form method="post" action={keyPath(record, 'revoke')} class="row">
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
