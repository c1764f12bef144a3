import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './return-to';

const ORIGIN = 'https://countersign.example';

/** What a browser does with the value as a Location header on our origin: it must stay on it. */
function staysOnOrigin(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return false;
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return false;
  return new URL(path, ORIGIN).origin === ORIGIN;
}

describe('safeReturnPath', () => {
  it.each([
    ['/proposals/prp_x?tab=1', '/proposals/prp_x?tab=1'],
    ['/', '/'],
    ['/proposals/prp_x#decide', '/proposals/prp_x#decide'],
    ['/history?from=2026-01-01&q=a%20b', '/history?from=2026-01-01&q=a%20b'],
    // A percent-encoded backslash is path data: browsers do not decode it into a separator, so
    // "/%5Cevil" is a (non-existent) page on this site, not another origin.
    ['/%5Cevil', '/%5Cevil'],
    ['/%2F%2Fevil.test', '/%2F%2Fevil.test'],
  ])('keeps the same-origin path %j', (raw, expected) => {
    expect(safeReturnPath(raw)).toBe(expected);
    expect(staysOnOrigin(expected)).toBe(true);
  });

  it.each([
    ['an absolute https URL', 'https://evil.test/'],
    ['an absolute http URL', 'http://evil.test/proposals'],
    ['a protocol-relative URL', '//evil.test'],
    ['a protocol-relative URL with a path', '//evil.test/proposals'],
    ['three slashes', '///evil.test'],
    ['slash backslash', '/\\evil.test'],
    ['slash double backslash', '/\\\\evil'],
    ['a backslash later in the path', '/proposals\\..\\\\evil.test'],
    ['double backslash', '\\\\evil.test'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['a bare host', 'evil.test'],
    ['a relative path', 'proposals/prp_x'],
    ['a leading space', ' /proposals'],
    ['a tab after the slash', '/\t/evil.test'],
    ['a newline', '/proposals\nSet-Cookie: x=1'],
    ['a carriage return', '/proposals\r\n'],
    ['a NUL', '/proposals\u0000'],
    ['DEL', '/proposals\u007f'],
    ['the empty string', ''],
    ['a very long path', `/${'a'.repeat(4096)}`],
  ])('falls back for %s', (_label, raw) => {
    expect(safeReturnPath(raw)).toBe('/');
    expect(safeReturnPath(raw, '/queue')).toBe('/queue');
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an array', ['/proposals']],
    ['an object', { pathname: '/proposals' }],
  ])('falls back for a non-string (%s)', (_label, raw) => {
    expect(safeReturnPath(raw)).toBe('/');
  });

  it.each(['/signin', '/signin/', '/signin?callbackUrl=%2Fproposals', '/signin#x', '/api/auth/signout'])(
    'does not return to %j (a sign-in loop or an API route)',
    (raw) => {
      expect(safeReturnPath(raw)).toBe('/');
    },
  );

  // Dot segments are resolved by URL parsing: "/.//evil.test" has the pathname "//evil.test",
  // which a browser reads as another origin. The result must stay on this site.
  it.each(['/.//evil.test', '/%2e//evil.test', '/a/..//evil.test', '/./%2e//evil.test', '/proposals/../..//evil.test'])(
    'never turns the dot-segment path %j into another origin',
    (raw) => {
      const result = safeReturnPath(raw);
      expect(staysOnOrigin(result), `safeReturnPath(${JSON.stringify(raw)}) returned ${JSON.stringify(result)}`).toBe(
        true,
      );
    },
  );
});
