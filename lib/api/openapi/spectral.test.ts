import { Document, type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './document';

/**
 * What `spectral lint` reports with a ruleset of `extends: ["spectral:oas"]`: every finding, errors and warnings alike.
 */
async function lint(document: unknown) {
  const spectral = new Spectral();
  // The ruleset's own type leaves out `extends`, which its definition does not need.
  spectral.setRuleset({ extends: [oas as RulesetDefinition] });
  const findings = await spectral.run(new Document(JSON.stringify(document, null, 2), Json, 'openapi.json'));
  return findings.map(({ code, message, path }) => `${String(code)} at ${path.join('.')}: ${message}`);
}

describe("Spectral's spectral:oas ruleset", () => {
  it('finds nothing in the document: no error, no warning', async () => {
    expect(await lint(openApiDocument('0.0.0-test'))).toStrictEqual([]);
  });

  it('finds an unused component and an operation without a description (it is really linting)', async () => {
    type Loose = {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, unknown> };
    };
    const mangled = structuredClone(openApiDocument('0.0.0-test')) as Loose;
    delete mangled.paths['/api/v1/proposals']!.post!.description;
    mangled.components.schemas.Unused = { type: 'string' };
    const codes = (await lint(mangled)).map((finding) => finding.split(' ')[0]);
    expect(codes).toEqual(expect.arrayContaining(['oas3-unused-component', 'operation-description']));
  });
});
