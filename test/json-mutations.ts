/**
 * Every single change to a JSON document that a property test of a verifier walks (docs/evidence.md):
 * each leaf changed (a string extended, a number moved by one, a boolean flipped, null made a
 * string) and nulled; each object key deleted; each array element deleted and duplicated; an element
 * inserted; every two elements swapped; every array truncated to each shorter prefix. Exhaustive and
 * deterministic, so a test can count the cases and notice when the set shrinks.
 */
export type JsonPath = readonly (string | number)[];

export type Mutation = { name: string; path: JsonPath; document: unknown };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The document with the node at `path` replaced by `replace(node)` (undefined deletes an object key). */
function replaceAt(document: Json, path: JsonPath, replace: (node: Json) => Json | undefined): Json {
  if (path.length === 0) return replace(document) ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(document))
    return document.map((item, index) => (index === head ? replaceAt(item, rest, replace) : item));
  const object = document as Record<string, Json>;
  const next: Record<string, Json> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key !== head) next[key] = value;
    else if (rest.length > 0) next[key] = replaceAt(value, rest, replace);
    else {
      const replaced = replace(value);
      if (replaced !== undefined) next[key] = replaced;
    }
  }
  return next;
}

function changedLeaf(node: Json): Json | undefined {
  if (typeof node === 'string') return `${node}x`;
  if (typeof node === 'number') return node + 1;
  if (typeof node === 'boolean') return !node;
  if (node === null) return 'x';
  return undefined;
}

/** Every mutation of `document`, depth first. */
export function* mutations(document: unknown): Generator<Mutation> {
  const root = JSON.parse(JSON.stringify(document)) as Json;
  function* walk(node: Json, path: (string | number)[]): Generator<Mutation> {
    const at = (name: string, replace: (node: Json) => Json | undefined, where: JsonPath = path): Mutation => ({
      name: `${name} ${where.join('.') || '(root)'}`,
      path: where,
      document: replaceAt(root, where, replace),
    });
    const changed = changedLeaf(node);
    if (changed !== undefined) yield at('change', () => changed);
    if (node !== null && path.length > 0) yield at('null', () => null);
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        yield at(`delete [${index}] of`, (array) => (array as Json[]).filter((_, i) => i !== index));
        yield at(`duplicate [${index}] of`, (array) =>
          (array as Json[]).flatMap((item, i) => (i === index ? [item, item] : [item])),
        );
        for (let other = index + 1; other < node.length; other++) {
          yield at(`swap [${index}] and [${other}] of`, (array) =>
            (array as Json[]).map((item, i) => (i === index ? node[other]! : i === other ? node[index]! : item)),
          );
        }
      }
      for (let length = 0; length < node.length; length++)
        yield at(`truncate to ${length}`, (array) => (array as Json[]).slice(0, length));
      // An element inserted: a copy of the first (or a bare string in an empty array) at the end.
      yield at('insert into', (array) => [...(array as Json[]), node.length > 0 ? node[0]! : 'x']);
      for (let index = 0; index < node.length; index++) yield* walk(node[index]!, [...path, index]);
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        yield at('delete', () => undefined, [...path, key]);
        yield* walk(node[key]!, [...path, key]);
      }
    }
  }
  yield* walk(root, []);
}

/** "decisions[0].reason" for ['decisions', 0, 'reason']. */
export function pathText(path: JsonPath): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/**
 * Whether `path` lies within a path a verifier printed under "Not verified": each printed line starts
 * with its path(s), comma-separated, before a space and a parenthesis ("decisions[].reason (…)";
 * `[]` stands for any index).
 */
export function isUnder(path: JsonPath, unverifiedLines: readonly string[]): boolean {
  const text = pathText(path);
  return unverifiedLines.some((line) =>
    line
      .split(' (')[0]!
      .split(', ')
      .some((printed) => {
        const pattern = new RegExp(
          `^${printed
            .replace(/[.*+?^${}()|\\]/g, '\\$&')
            .replace(/\[\]/g, '\\[\\d+\\]')
            .replace(/\[(\d+)\]/g, '\\[$1\\]')}(?:$|[.[])`,
        );
        return pattern.test(text);
      }),
  );
}
