import { Type } from '@sinclair/typebox';
import { ERROR_CODES } from '../errors.ts';

/** The shapes only the HTTP edge speaks: problem documents and path parameters. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
    detail: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
        maxItems: 20,
        description: 'The first 20 field errors; `errors_total` says how many there were when there were more.',
      }),
    ),
    errors_total: Type.Optional(Type.Integer({ description: 'How many field errors there were, when over 20.' })),
    limit: Type.Optional(Type.String()),
  },
  { $id: 'Problem', description: 'An RFC 9457 problem document (application/problem+json).' },
);

// No length cap here: an id of any malformed shape is a 404 (DECISIONS "HTTP and errors"),
// which the services answer after isIdOf, before any query; the router caps length at 200.
export const IdParams = Type.Object({ id: Type.String() });

const problemContent = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Type.Ref(Problem) } },
});

/** Every route documents its errors as problem documents (SPEC "Errors"). */
export const ErrorResponses = {
  '4xx': problemContent('A client error: see `code` for which one.'),
  '5xx': problemContent('internal_error: quote request_id when you report it.'),
};
