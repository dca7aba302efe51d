/**
 * Named schemas (`title`: Customer, CustomerList, Problem, CustomerCreatedEvent, …) are kept
 * once under `components.schemas` and referred to by `$ref` wherever the document holds them,
 * so a generated client has one `Customer` type, not one per operation and status.
 */
type Node = unknown;

/** The schema without what may differ between its uses: where it is, not what it is. */
function bodyOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, title: _title, ...body } = schema;
  return body;
}

export function nameSchemas<D extends object>(doc: D): D {
  const { components = {}, ...rest } = doc as { components?: object };
  const { schemas: existing = {}, ...others } = components as { schemas?: Record<string, unknown> };
  const schemas: Record<string, unknown> = { ...existing };
  const bodies = new Map<string, string>();
  const visit = (node: Node): Node => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)]));
    const name = out.title;
    if (typeof name !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(name)) return out;
    const body = bodyOf(out);
    const known = bodies.get(name);
    if (known === undefined) {
      bodies.set(name, JSON.stringify(body));
      schemas[name] = { title: name, ...body };
    } else if (known !== JSON.stringify(body)) {
      // Another schema of the same name (a Partial of it, say) stays where it is, unnamed.
      const { title: _title, ...unnamed } = out;
      return unnamed;
    }
    // Each use keeps its own description beside the reference (OpenAPI 3.1 allows it).
    return { $ref: `#/components/schemas/${name}`, ...(out.description ? { description: out.description } : {}) };
  };
  const named = visit(rest) as object;
  const shared = visit(others) as object;
  return { ...named, components: { ...shared, schemas } } as unknown as D;
}
