/**
 * Is a JSON Schema closed at every depth: does every value it accepts have only the fields it
 * names? Every subschema is visited, whichever keyword holds it, so an open object cannot hide in
 * `$defs`, `prefixItems` or a branch. References are refused rather than followed: inline, every
 * object's closedness can be seen. Paths are named as the contracts lint names them (`(root)`,
 * `customer.address`, `lines[]`).
 */

export type OpenPlace = { path: string; message: string };

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);
const child = (path: string, name: string) => (path === '(root)' ? name : `${path}.${name}`);

const REFERENCES = ['$ref', '$dynamicRef', '$recursiveRef'];
/** Keywords holding one subschema, and what its place is called. */
const ONE = {
  items: (path: string) => `${path}[]`,
  contains: (path: string) => `${path}[] (contains)`,
  additionalItems: (path: string) => `${path}[]`,
  unevaluatedItems: (path: string) => `${path}[]`,
  not: (path: string) => `${path} (not)`,
  if: (path: string) => `${path} (if)`,
  then: (path: string) => `${path} (then)`,
  else: (path: string) => `${path} (else)`,
  propertyNames: (path: string) => `${path} (property names)`,
  additionalProperties: (path: string) => `${path} (additional properties)`,
  unevaluatedProperties: (path: string) => `${path} (unevaluated properties)`,
} as const;
/** Keywords holding a list of subschemas. */
const LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
/** Keywords holding subschemas by name. */
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

function visit(schema: unknown, path: string, found: OpenPlace[]): void {
  if (schema === false) return;
  if (!isNode(schema)) {
    found.push({ path, message: 'accepts any value, objects with any fields too: give it a type' });
    return;
  }
  for (const keyword of REFERENCES) {
    if (keyword in schema)
      found.push({ path, message: `"${keyword}" is refused: write the schema inline, so its closedness shows` });
  }
  const typed = 'type' in schema || 'enum' in schema || 'const' in schema;
  const branched = LISTS.slice(0, 3).some((keyword) => Array.isArray(schema[keyword]));
  if (!typed && !branched) found.push({ path, message: 'no type: it accepts objects with any fields; give it a type' });
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('object') || isNode(schema.properties)) && schema.additionalProperties !== false)
    found.push({ path, message: 'the object is open: give it "additionalProperties": false' });
  if (types.includes('array') && !('items' in schema))
    found.push({ path, message: 'the array says nothing of its items: give it "items"' });

  for (const [keyword, place] of Object.entries(ONE)) {
    // `additionalProperties: false` is what closes an object; any other value is visited as a schema.
    if (keyword in schema && !(keyword.endsWith('Properties') && schema[keyword] === false))
      visit(schema[keyword], place(path), found);
  }
  for (const keyword of LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((branch, index) => visit(branch, `${path}|${keyword}[${index}]`, found));
  }
  for (const keyword of MAPS) {
    const map = schema[keyword];
    if (isNode(map))
      for (const [name, inner] of Object.entries(map))
        visit(inner, keyword === 'properties' ? child(path, name) : `${path} (${keyword} ${name})`, found);
  }
}

/** Every place where the schema accepts fields it does not name (none: it is closed). */
export function openPlaces(schema: unknown): OpenPlace[] {
  const found: OpenPlace[] = [];
  visit(schema, '(root)', found);
  return found;
}
