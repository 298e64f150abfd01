// Sign in, sign up and choose a password (the page a one-time link opens): one form each, with labels,
// autocomplete hints for password managers, and the error of the last attempt above the fields.
import { PASSWORD_MIN } from '../../../accounts/index.js';
import { CsrfField, Layout, Notice } from './layout.js';

interface FormProps {
  csrfToken: string;
  error?: string | undefined;
  notice?: string | undefined;
  email?: string | undefined;
}

/** A password being chosen (sign-up, one-time link): the browser may suggest one, and knows the floor. */
function NewPasswordField(props: { label: string }) {
  return (
    <label>
      {props.label} <span class="muted small">(at least {PASSWORD_MIN} characters)</span>
      <input type="password" name="password" required minLength={PASSWORD_MIN} autocomplete="new-password" />
    </label>
  );
}

/** `next`: the account page to go on to once signed in (a `pdn login` approval), if not the keys. */
export function SignInPage(props: FormProps & { signUpOpen: boolean; next?: string | undefined }) {
  return (
    <Layout title="Sign in">
      <section class="card narrow">
        <h1>Sign in</h1>
        {props.notice && <Notice kind="ok">{props.notice}</Notice>}
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <form method="post" action="/account/sign-in" class="stack">
          <CsrfField token={props.csrfToken} />
          {props.next && <input type="hidden" name="next" value={props.next} />}
          <label>
            Email
            <input type="email" name="email" required autocomplete="username" value={props.email ?? ''} />
          </label>
          <label>
            Password
            <input type="password" name="password" required autocomplete="current-password" />
          </label>
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        <p class="muted small">
          {props.signUpOpen ? (
            <>
              New here? <a href="/account/sign-up">Create an account</a>.{' '}
            </>
          ) : null}
          Forgot your password? Ask the operator of this server for a reset link.
        </p>
      </section>
    </Layout>
  );
}

export function SignUpPage(props: FormProps) {
  return (
    <Layout title="Create an account">
      <section class="card narrow">
        <h1>Create an account</h1>
        <p class="muted">New accounts start on the Free plan: 10 API calls per hour.</p>
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <form method="post" action="/account/sign-up" class="stack">
          <CsrfField token={props.csrfToken} />
          <label>
            Email
            <input type="email" name="email" required autocomplete="email" value={props.email ?? ''} />
          </label>
          <NewPasswordField label="Password" />
          <button type="submit" class="primary">
            Create account
          </button>
        </form>
        <p class="muted small">
          Already have one? <a href="/account/sign-in">Sign in</a>.
        </p>
      </section>
    </Layout>
  );
}

export function SignUpClosedPage() {
  return (
    <Layout title="Sign-up is closed">
      <section class="card narrow">
        <h1>Sign-up is closed</h1>
        <p>This server does not take new accounts itself. Ask its operator for one.</p>
        <p>
          <a href="/account/sign-in">Sign in</a> if you already have an account.
        </p>
      </section>
    </Layout>
  );
}

export function SetPasswordPage(props: FormProps & { token: string }) {
  return (
    <Layout title="Choose a password">
      <section class="card narrow">
        <h1>Choose a password</h1>
        <p class="muted">
          For <strong>{props.email}</strong>. This link works once.
        </p>
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <form method="post" action="/account/welcome" class="stack">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="token" value={props.token} />
          <input type="hidden" name="email" autocomplete="username" value={props.email ?? ''} />
          <NewPasswordField label="New password" />
          <button type="submit" class="primary">
            Save and sign in
          </button>
        </form>
      </section>
    </Layout>
  );
}
