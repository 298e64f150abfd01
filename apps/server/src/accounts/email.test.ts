import { describe, expect, it } from 'vitest';
import { InvalidEmailError, normaliseEmail } from './email.js';

describe('normaliseEmail', () => {
  const table: [string, { given: string; want: string | typeof InvalidEmailError }][] = [
    ['lower-cases and trims', { given: '  Ada@Example.COM ', want: 'ada@example.com' }],
    ['keeps plus addressing', { given: 'ada+pdn@example.com', want: 'ada+pdn@example.com' }],
    ['refuses no @', { given: 'ada.example.com', want: InvalidEmailError }],
    ['refuses two @', { given: 'a@b@example.com', want: InvalidEmailError }],
    ['refuses a dotless domain', { given: 'ada@localhost', want: InvalidEmailError }],
    ['refuses inner spaces', { given: 'a da@example.com', want: InvalidEmailError }],
    ['refuses control characters', { given: 'ada\u0000@example.com', want: InvalidEmailError }],
    ['refuses over 254 characters', { given: `${'a'.repeat(250)}@example.com`, want: InvalidEmailError }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    if (typeof want === 'string') expect(normaliseEmail(given)).toBe(want);
    else expect(() => normaliseEmail(given)).toThrow(want);
  });
});
