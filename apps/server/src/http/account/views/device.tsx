// The pages of `pdn login` (accounts/device-logins.ts): enter the code the terminal shows, see what
// is asking (the machine's name as its CLI sent it, the address it asked from, when) and approve or
// deny it, then go back to the terminal.
import { CLIENT_NAME_MAX, type DeviceLogin, displayUserCode } from '../../../accounts/index.js';
import { CsrfField, Layout, Notice, type Viewer } from './layout.js';
import { utc } from './time.js';

export function DeviceEntryPage(props: { viewer: Viewer; error?: string | undefined; code?: string }) {
  return (
    <Layout title="Sign in a terminal" viewer={props.viewer} section="keys">
      <h1>Sign in a terminal</h1>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <section class="card narrow">
        <p>
          Enter the code that <code>pdn login</code> shows in your terminal.
        </p>
        <form method="get" action="/account/device" class="stack">
          <label>
            Code
            <input
              name="code"
              required
              autocomplete="off"
              autocapitalize="characters"
              spellcheck={false}
              maxLength={9}
              placeholder="XXXX-XXXX"
              value={props.code ?? ''}
            />
          </label>
          <button type="submit" class="primary">
            Continue
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function DeviceConfirmPage(props: { viewer: Viewer; login: DeviceLogin }) {
  const { viewer, login } = props;
  return (
    <Layout title="Approve a terminal" viewer={viewer} section="keys">
      <h1>Approve this terminal?</h1>
      <section class="card narrow">
        <p>
          A <code>pdn login</code> asks for an API key of your account. Approve it only if you started it
          yourself, and the code in your terminal is <strong>{displayUserCode(login.userCode)}</strong>.
        </p>
        <dl class="asker">
          <dt>Machine</dt>
          <dd>{login.clientName.slice(0, CLIENT_NAME_MAX)}</dd>
          <dt>Asked from</dt>
          <dd>
            <code>{login.clientAddress}</code>
          </dd>
          <dt>Asked at</dt>
          <dd>
            <time dateTime={new Date(login.createdAt).toISOString()}>{utc(login.createdAt)}</time>
          </dd>
        </dl>
        <p class="muted small">
          Approving makes a new live key named for the machine; you can revoke it on the keys page.
        </p>
        <form method="post" action="/account/device" class="row">
          <CsrfField token={viewer.csrfToken} />
          <input type="hidden" name="code" value={displayUserCode(login.userCode)} />
          <button type="submit" name="decision" value="approve" class="primary">
            Approve
          </button>
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function DeviceDonePage(props: { viewer: Viewer; approved: boolean }) {
  return (
    <Layout
      title={props.approved ? 'Terminal approved' : 'Terminal denied'}
      viewer={props.viewer}
      section="keys"
    >
      <h1>{props.approved ? 'Terminal approved' : 'Terminal denied'}</h1>
      <section class="card narrow">
        <p>
          {props.approved
            ? 'Go back to your terminal: pdn login finishes there in a few seconds.'
            : 'The terminal gets no key, and pdn login stops there.'}
        </p>
        <p>
          <a href="/account/keys">Your keys</a>
        </p>
      </section>
    </Layout>
  );
}
