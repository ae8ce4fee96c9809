import { NotFoundError } from '../../services/shared/errors';
import { refusalResponse, replayedBy, toStored } from '../../services/shared/http/idempotent';
import { SCIM_ERROR_SCHEMA } from '../../services/shared/http/gateway-responses';

/**
 * replayedBy: a replayed stored problem names the replaying request (requestId, instance), as
 * docs/errors.md promises of every problem; everything else is replayed as it is.
 */
const replay = { requestId: 'req-replay', instance: '/v1/organizations/o/recruitment/candidates' };

describe('replayedBy', () => {
  it("gives a stored problem the replay's requestId and instance, and keeps every other member, its place, status and headers", () => {
    const stored = refusalResponse(new NotFoundError('Candidate c'), 'req-erasure', '/v1/organizations/o/recruitment/candidates/c');
    const withHeader = { ...stored, headers: { 'Retry-After': '3' } };
    const out = replayedBy(withHeader, replay);
    const before = JSON.parse(stored.bodyText!) as Record<string, unknown>;
    expect(JSON.parse(out.bodyText!)).toEqual({ ...before, requestId: 'req-replay', instance: replay.instance });
    expect(Object.keys(JSON.parse(out.bodyText!))).toEqual(Object.keys(before));
    expect({ statusCode: out.statusCode, headers: out.headers, contentType: out.contentType }).toEqual({ statusCode: 404, headers: { 'Retry-After': '3' }, contentType: 'application/problem+json' });
  });

  it('leaves a SCIM error body without those members as it is, and adds none', () => {
    const bodyText = JSON.stringify({ schemas: [SCIM_ERROR_SCHEMA], status: '409', scimType: 'uniqueness', detail: 'Taken.' });
    const stored = { statusCode: 409, headers: {}, bodyText, contentType: 'application/scim+json' };
    expect(replayedBy(stored, replay).bodyText).toBe(bodyText);
  });

  it('replays a success byte for byte, even one with requestId or instance members', () => {
    const success = toStored({ statusCode: 201, headers: { ETag: '"x"' }, body: { id: 'x', requestId: 'req-original', instance: '/somewhere' } });
    expect(replayedBy(success, replay)).toBe(success);
    const scimUser = toStored({ statusCode: 201, headers: {}, body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], id: 'u' }, contentType: 'application/scim+json' });
    expect(replayedBy(scimUser, replay)).toBe(scimUser);
    const empty = toStored({ statusCode: 204 });
    expect(replayedBy(empty, replay)).toBe(empty);
  });
});
