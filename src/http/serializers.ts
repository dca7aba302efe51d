import { type RouteDefinition, type Serializer, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * Response serialisers compiled once per distinct schema, not once per route and status.
 * Every route answers its errors with the same Problem schema, seven answer a Customer, and
 * each compile builds an Ajv of its own for the nullable branches: compiling them route by
 * route, at start, was the largest part of a cold start.
 */
export function sharedSerializers() {
  const select = SerializerSelector();
  return (externalSchemas: unknown, options: unknown) => {
    const compile = select(externalSchemas as never, options as never);
    const compiled = new Map<string, Serializer>();
    return (route: RouteDefinition): Serializer => {
      const key = JSON.stringify(route.schema);
      const known = compiled.get(key);
      if (known) return known;
      // Compiled on its first use: a cold start pays for none; the first answer of a shape, a few ms.
      let serialize: Serializer | null = null;
      const onFirstUse: Serializer = (doc) => {
        serialize ??= compile(route);
        return serialize(doc);
      };
      compiled.set(key, onFirstUse);
      return onFirstUse;
    };
  };
}
