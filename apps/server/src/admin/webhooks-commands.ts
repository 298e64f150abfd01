// `pdn-server webhooks secret USER [--rotate]` (openapi.yaml, "Webhooks", Secret): the
// operator's way to see or rotate an account's webhook secret. The secret is the last line printed.
import type { Accounts } from '../accounts/index.js';
import { PREVIOUS_SECRET_MS } from '../webhooks/webhook-secrets.js';
import { requireUser } from './user-ref.js';

export async function webhooksSecret(accounts: Accounts, userRef: string, rotate: boolean): Promise<void> {
  const user = await requireUser(accounts, userRef);
  if (rotate) {
    const secret = await accounts.webhookSecrets.rotate(user.id);
    console.log(
      `Rotated the webhook secret of ${userRef}: events are signed with this one and, for ${PREVIOUS_SECRET_MS / 3_600_000} hours, the previous one too.`,
    );
    console.log(secret);
    return;
  }
  console.log(`The webhook secret of ${userRef} (Pdn-Signature, see openapi.yaml "Webhooks"):`);
  console.log(await accounts.webhookSecrets.current(user.id));
}
