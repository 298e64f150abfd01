// Email addresses as sign-in names. Normalised once, here, at the boundary: trimmed and
// lower-cased, so `Ada@Example.com` and `ada@example.com` are one account in every backend. The check
// is deliberately loose (one `@`, a dot in the domain, no spaces or controls): no mail is ever sent,
// so the address only has to be what its owner will type again.
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;
/** RFC 5321 section 4.5.3.1.3: a path holds at most 256 octets, so an address at most 254 characters. */
const MAX_LENGTH = 254;

export class InvalidEmailError extends Error {
  override name = 'InvalidEmailError';
  constructor(candidate: string) {
    super(`'${candidate}' is not an email address`);
  }
}

/** The normalised address, or an InvalidEmailError. */
export function normaliseEmail(candidate: string): string {
  const email = candidate.trim().toLowerCase();
  if (email.length > MAX_LENGTH || !EMAIL.test(email)) throw new InvalidEmailError(candidate);
  return email;
}
