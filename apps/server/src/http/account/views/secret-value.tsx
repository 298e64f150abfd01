// A secret shown to its owner (a new API key, the webhook secret), with a Copy button that the
// page's script reveals and wires (account.js: `data-copy` names the element to copy).
export function SecretValue(props: { id: string; value: string }) {
  return (
    <>
      <div class="secret">
        <code id={props.id} class="key-value">
          {props.value}
        </code>
        <button type="button" class="primary" data-copy={props.id} hidden>
          Copy
        </button>
      </div>
      <p class="muted small" aria-live="polite" data-copy-status={props.id} />
    </>
  );
}
