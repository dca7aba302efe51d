import { type RouteDefinition, type Serializer, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * Response serialisers compiled once per distinct schema, not once per route and status.
 * Every route answers its errors with the same Problem schema, seven answer a Customer, and
 * each compile builds an Ajv of its own for the nullable branches: compiling them route by
 * route was the largest part of a cold start (bench/start.ts).
 */
export function sharedSerializers() {
  const select = SerializerSelector();
  return (externalSchemas: unknown, options: unknown) => {
    const compile = select(externalSchemas as never, options as never);
    const compiled = new Map<string, Serializer>();
    return (route: RouteDefinition): Serializer => {
      const key = JSON.stringify(route.schema);
      let serialize = compiled.get(key);
      if (!serialize) {
        serialize = compile(route);
        compiled.set(key, serialize);
      }
      return serialize;
    };
  };
}
