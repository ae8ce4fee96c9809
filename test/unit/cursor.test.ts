import { randomBytes } from 'node:crypto';
import { openCursor, sealCursor } from '../../services/shared/ddb/cursor';

const key = randomBytes(32);
const binding = { organizationId: 'org-a', query: { route: 'listTimeEntries', employeeId: 'e', limit: 10 } };

describe('cursors', () => {
  it('round-trips the position for the same organization and query (key order does not matter)', () => {
    const cursor = sealCursor(key, binding, { after: '2026-03-02T08:00:00.000Z#id' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('2026');
    expect(openCursor(key, { organizationId: 'org-a', query: { limit: 10, employeeId: 'e', route: 'listTimeEntries' } }, cursor)).toEqual({ after: '2026-03-02T08:00:00.000Z#id' });
  });

  it.each([
    ['another organization', { ...binding, organizationId: 'org-b' }],
    ['another query', { ...binding, query: { ...binding.query, employeeId: 'f' } }],
    ['another page size', { ...binding, query: { ...binding.query, limit: 11 } }],
  ])('does not open for %s (422 on the cursor parameter)', (_what, other) => {
    const cursor = sealCursor(key, binding, { after: 'x' });
    expect(() => openCursor(key, other, cursor)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ parameter: 'cursor' })] }));
  });

  it('does not open when altered, truncated or made up', () => {
    const cursor = sealCursor(key, binding, { after: 'x' });
    const flipped = Buffer.from(cursor, 'base64url');
    flipped[20] ^= 1;
    for (const bad of [flipped.toString('base64url'), cursor.slice(0, -2), 'abc', '', '!!!', cursor + '=']) {
      expect(() => openCursor(key, binding, bad)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
  });

  it('opens only the exact text returned, not another base64url spelling of the same bytes', () => {
    // The fuzz drill found it: the spare low bits of the last character are ignored when decoding.
    let cursor = sealCursor(key, binding, { after: 'x' });
    while (Buffer.from(cursor, 'base64url').length % 3 === 0) cursor = sealCursor(key, binding, { after: `${cursor.length}` });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(cursor.at(-1)!);
    const respelled = cursor.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(cursor, 'base64url'));
    expect(() => openCursor(key, binding, respelled)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });

  it('does not open under another key', () => {
    expect(() => openCursor(randomBytes(32), binding, sealCursor(key, binding, 1))).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});
