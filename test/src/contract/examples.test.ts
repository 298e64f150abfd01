// The examples /docs shows are the contract's own (every error example once said `unauthorized`):
// each error answer's example carries the code of its status, and every JSON answer of every
// operation has an example its schema accepts.
import { describe, expect, it } from 'vitest';
import { CODES_FOR_STATUS } from './check-exchange.js';
import { describeErrors, openapi, type ResponseObject, resolve, validatorFor } from './openapi-document.js';

type Json = { schema?: object; example?: unknown };

const answers = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => typeof operation === 'object' && 'responses' in operation)
    .flatMap(([method, operation]) =>
      Object.entries(operation.responses).map(([status, response]) => {
        const json = resolve<ResponseObject>(response).content?.['application/json'] as Json | undefined;
        return { name: `${method.toUpperCase()} ${path} ${status}`, status: Number(status), json };
      }),
    ),
);
const jsonAnswers = answers.filter(
  (answer) => answer.json !== undefined && answer.name !== 'GET /openapi.json 200',
);

describe('examples in openapi.yaml', () => {
  it.each(jsonAnswers.map((answer) => [answer.name, answer] as const))(
    '%s has a valid example',
    (_name, answer) => {
      expect(answer.json?.example).toBeDefined();
      const validate = validatorFor(answer.json?.schema ?? {});
      expect(validate(answer.json?.example), describeErrors(validate)).toBe(true);
    },
  );

  const errors = jsonAnswers.filter((answer) => answer.status >= 400);
  it.each(errors.map((answer) => [answer.name, answer] as const))(
    '%s shows its own code',
    (_name, answer) => {
      const example = answer.json?.example as { error?: { code?: string } } | undefined;
      const code = example?.error?.code;
      expect(CODES_FOR_STATUS[answer.status]).toContain(code);
    },
  );

  // 405 is no operation's answer: any path answers it to a method it does not offer ("Unknown routes
  // and wrong methods"), and OPTIONS, the one such method an operation once documented, is 204.
  it('covers every operation', () => {
    expect(errors.length).toBeGreaterThan(40);
    expect(new Set(errors.map((answer) => answer.status))).toEqual(
      new Set([400, 401, 403, 404, 408, 409, 410, 413, 422, 429, 500, 501, 503, 507]),
    );
  });
});
