// A page that only says something: an error (404, 403, 429, 500) or a link that no longer works.
import { Layout } from './layout.js';

export function MessagePage(props: { title: string; message: string; requestId?: string | undefined }) {
  return (
    <Layout title={props.title}>
      <section class="card narrow">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p>
          <a href="/account">Back to your account</a>
        </p>
        {props.requestId && <p class="muted small">Request id: {props.requestId}</p>}
      </section>
    </Layout>
  );
}
