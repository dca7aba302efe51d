import { Type } from '@sinclair/typebox';
import type { FastifySchema, RouteOptions } from 'fastify';
import { errorAnswersByStatus, type Operation } from './error-answers.ts';
import { Problem } from './schemas.ts';
import type { RouteAccess } from './types.ts';

/** The operation as error-answers.ts reads it, or null for a route that needs no key. */
export function operationOf(route: RouteOptions, schema: FastifySchema): Operation | null {
  const access = (route.config as { access?: RouteAccess } | undefined)?.access;
  if (!access || access.kind === 'public') return null;
  const headers = (schema.headers as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return {
    method: ([] as string[]).concat(route.method)[0]!,
    url: route.url,
    access,
    body: schema.body !== undefined,
    headers: Object.keys(headers).map((h) => h.toLowerCase()),
  };
}

/**
 * Each error status the operation can answer, with its codes and when each is given: in
 * the description for people, as the `code` enum for programs (and for the tests' answer
 * checker, test/helpers/openapi-check.ts).
 */
export function documentedErrors(op: Operation, headers: (status: string) => object): Record<string, object> {
  const documented: Record<string, object> = {};
  for (const [status, answers] of errorAnswersByStatus(op)) {
    const codes = answers.map((a) => a.code);
    documented[String(status)] = {
      description: answers.map((a) => `- \`${a.code}\`: ${a.when}`).join('\n'),
      content: {
        'application/problem+json': {
          schema: Type.Intersect([
            Type.Object({
              code: Type.Unsafe<string>({
                type: 'string',
                enum: codes,
                description: `On this operation, a ${status} is ${codes.map((c) => `\`${c}\``).join(' or ')}.`,
              }),
            }),
            Type.Ref(Problem),
          ]),
        },
      },
      headers: headers(String(status)),
    };
  }
  return documented;
}

/**
 * Most error answers are alike across operations (every 401 is): each distinct one is kept
 * once in `components.responses` (`Error401`, `Error403_2`, …) and the operations refer to
 * it, which keeps the document, and the client types generated from it, near half the size.
 */
export function shareErrorResponses<D extends { paths?: object; components?: object }>(doc: D): D {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  const names = new Map<string, string>();
  const shared: Record<string, unknown> = {};
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const json = JSON.stringify(response);
      let name = names.get(json);
      if (!name) {
        name = `Error${status}`;
        for (let n = 2; shared[name]; n++) name = `Error${status}_${n}`;
        names.set(json, name);
        shared[name] = response;
      }
      operation.responses![status] = { $ref: `#/components/responses/${name}` };
    }
  }
  return { ...doc, components: { ...doc.components, responses: shared } };
}
