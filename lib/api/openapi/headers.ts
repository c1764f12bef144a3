import type { HeaderName } from './operation';

/** The response headers the API sets, as OpenAPI header objects (`components.headers`). */
export const HEADERS: Record<HeaderName, { description: string; schema: { type: 'string' } }> = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'string' } },
  Deprecation: {
    description:
      'The contract version used is deprecated (RFC 9745): `@<unix seconds>` of when it stopped being current. ' +
      'Only for a supported version.',
    schema: { type: 'string' },
  },
  Sunset: {
    description:
      'When the deprecated contract version stops being accepted (RFC 8594, an HTTP date). Only when a sunset is set.',
    schema: { type: 'string' },
  },
  'Content-Disposition': { description: 'A download: `attachment; filename="…"`.', schema: { type: 'string' } },
  'WWW-Authenticate': {
    description:
      'The bearer challenge (RFC 6750 §3): `Bearer realm="countersign"`, with `error="invalid_token"` when a key ' +
      'was sent.',
    schema: { type: 'string' },
  },
};

export const headerRefs = (names: readonly HeaderName[] = []) =>
  names.length === 0
    ? undefined
    : Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
