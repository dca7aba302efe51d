import { Type } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';

/** The shapes only the HTTP edge speaks: problem documents and path parameters. */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'A link to the page that explains `code`: `<errors url>#<code>`.' }),
    title: Type.String({ description: 'A short summary of the code.' }),
    status: Type.Integer({ description: 'The HTTP status.' }),
    // One enum, not a union of constants: the reference lists the codes instead of a picker.
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: ERROR_CODES,
      description: 'What went wrong, for programs: branch on it.',
    }),
    detail: Type.String({ description: 'What went wrong this time, for people.' }),
    request_id: Type.String({ description: 'The `req_` id of the request: quote it when you report a failure.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({
            description: 'Where: a body field (`address.postcode`), `querystring.<name>`, or a header name.',
          }),
          message: Type.String({ description: 'What is wrong with it.' }),
        }),
        {
          maxItems: 20,
          description:
            'On a 400: each field that is wrong, the first 20; `errors_total` says how many there were when there were more.',
        },
      ),
    ),
    errors_total: Type.Optional(Type.Integer({ description: 'How many field errors there were, when over 20.' })),
    limit: Type.Optional(
      Type.String({ description: 'On a 429: the name of the limit reached, such as `writes_per_minute`.' }),
    ),
  },
  { $id: 'Problem', description: 'An RFC 9457 problem document (application/problem+json).' },
);

// No length cap here: an id of any malformed shape is a 404 (DECISIONS "HTTP and errors"),
// which the services answer after isIdOf, before any query; the router caps length at 200.
export const IdParams = Type.Object({ id: Type.String({ description: "The record's id." }) });

const problemContent = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Type.Ref(Problem) } },
});

/**
 * Every route answers its errors as problem documents (SPEC "Errors"): what the serialiser
 * needs. The OpenAPI document lists each status an operation can answer, with its codes,
 * in place of these two (src/http/error-answers.ts).
 */
export const ErrorResponses = {
  '4xx': problemContent('A client error: see `code` for which one.'),
  '5xx': problemContent('internal_error: quote request_id when you report it.'),
};
