// The frame of every account page: one small stylesheet and one small script of our own,
// served by this server (no CDN), a header with the account's navigation, and the page in <main>.
// Preact escapes every string it renders, so names and emails typed by users are shown as text.
import type { ComponentChildren } from 'preact';

export type Section = 'keys' | 'usage' | 'webhooks' | 'other';

export interface Viewer {
  email: string;
  csrfToken: string;
}

export function Layout(props: {
  title: string;
  viewer?: Viewer | undefined;
  section?: Section;
  children: ComponentChildren;
}) {
  const { title, viewer, section = 'other', children } = props;
  const current = (name: Section) => (section === name ? 'page' : undefined);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · pdn`}</title>
        <link rel="stylesheet" href="/account/account.css" />
        <script src="/account/account.js" defer />
      </head>
      <body>
        <header class="bar">
          <div class="bar-inner">
            <a class="brand" href="/account">
              <span class="logo" aria-hidden="true">
                ▣
              </span>
              pdn <span class="brand-sub">account</span>
            </a>
            {viewer && (
              <nav aria-label="Account">
                <a href="/account/keys" aria-current={current('keys')}>
                  API keys
                </a>
                <a href="/account/usage" aria-current={current('usage')}>
                  Plan &amp; usage
                </a>
                <a href="/account/webhooks" aria-current={current('webhooks')}>
                  Webhooks
                </a>
                <a href="/docs">API docs</a>
              </nav>
            )}
            {viewer && (
              <form class="sign-out" method="post" action="/account/sign-out">
                <input type="hidden" name="csrf" value={viewer.csrfToken} />
                <span class="who">{viewer.email}</span>
                <button type="submit" class="link-button">
                  Sign out
                </button>
              </form>
            )}
          </div>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}

/** A notice at the top of a page: what just happened, or what went wrong. */
export function Notice(props: { kind: 'ok' | 'error'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </p>
  );
}

export function CsrfField(props: { token: string }) {
  return <input type="hidden" name="csrf" value={props.token} />;
}
