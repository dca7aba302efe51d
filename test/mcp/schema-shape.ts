/**
 * What a tool's input must share with the API's request body, read from either JSON Schema
 * (the API's OpenAPI 3.1 `type: [T, "null"]`, zod's `anyOf: [T, {type: "null"}]`): each
 * field's types with null, its enum values, which fields are required, recursively.
 * Lengths and patterns are left out: the API checks those (src/mcp/json-schema-zod.ts).
 */
export interface Shape {
  types: string[];
  enum?: string[];
  required?: string[];
  properties?: Record<string, Shape>;
}

export function shapeOf(schema: any): Shape {
  const parts: any[] = schema.anyOf ?? [schema];
  const types = new Set<string>();
  let values: string[] | undefined;
  let object: any;
  for (const part of parts) {
    for (const type of [part.type].flat()) types.add(type);
    if (part.enum) values = part.enum.filter((v: unknown) => v !== null).sort();
    if (part.properties) object = part;
  }
  const shape: Shape = { types: [...types].sort() };
  if (values) shape.enum = values;
  if (object) {
    shape.required = [...(object.required ?? [])].sort();
    shape.properties = Object.fromEntries(
      Object.entries(object.properties).map(([name, field]) => [name, shapeOf(field)]),
    );
  }
  return shape;
}
