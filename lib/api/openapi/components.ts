import { z } from 'zod';

/**
 * The named schemas of `components.schemas`: each zod schema registered here is written once and
 * `$ref`ed wherever it appears, in operations and inside other named schemas. Request bodies are
 * described as a client sends them (`io: 'input'`: defaults make fields optional), responses as the
 * server answers (`io: 'output'`).
 */
export type ComponentMeta = { id: string; io: 'input' | 'output' };

const components = z.registry<ComponentMeta>();
const directions: ComponentMeta[] = [];

/** Registers `schema` under `id` (once) and answers it, so operations stay zod. */
export function component<T extends z.ZodType>(schema: T, id: string, io: ComponentMeta['io'] = 'output'): T {
  if (!components.has(schema)) {
    components.add(schema, { id, io });
    directions.push({ id, io });
  }
  return schema;
}

/** The reference to a registered schema; an unregistered one is a mistake in an operation's list. */
export function refOf(schema: z.ZodType): { $ref: string } {
  const meta = components.get(schema);
  if (!meta) throw new Error('An operation names a schema that is not a component; register it with component().');
  return ref(meta.id);
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

type JsonSchema = Record<string, unknown>;

/** What the document adds to zod's JSON Schema of a schema, for what zod cannot say of it (see `addJsonSchema`). */
const additions = new Map<z.core.$ZodType, () => JsonSchema>();

/**
 * Adds `extra()` to the JSON Schema zod writes for `schema`, wherever it appears: a `$ref` to a
 * component for a value the handlers pass through unchecked, or a constraint between fields.
 */
export function addJsonSchema<T extends z.ZodType>(schema: T, extra: () => JsonSchema): T {
  additions.set(schema, extra);
  return schema;
}

/** A component as OpenAPI holds it: JSON Schema 2020-12 is OpenAPI 3.1's own dialect, so no `$schema` or `$id`. */
function bare(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema' && key !== '$id'));
}

function generate(io: ComponentMeta['io']): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => ref(id).$ref,
    override: ({ zodSchema, jsonSchema }) => {
      const extra = additions.get(zodSchema);
      if (extra) Object.assign(jsonSchema, extra());
    },
  });
  return schemas as Record<string, JsonSchema>;
}

/** Every registered schema, each in its own direction. */
export function componentSchemas(): Record<string, JsonSchema> {
  const byIo = { input: generate('input'), output: generate('output') };
  return Object.fromEntries(directions.map(({ id, io }) => [id, bare(byIo[io][id]!)]));
}
