import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { issueApiKey } from '../../services/api-keys/issue';
import { getApiKey } from '../../services/api-keys/store';
import { handler as authorizer } from '../../services/authorizer/handler';
import { putOrganization } from '../../services/organization/public';
import { usageIdentifierKey } from '../../services/shared/auth/usage';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * Tenant-fair throttling needs two things of every key: the authorizer names its usage
 * identifier to API Gateway, and the CLI registers that identifier in the usage plan before
 * the key is stored (a failed registration stores nothing, so no key exists that API Gateway
 * would refuse).
 */
let db: Db;
const ORG = '22222222-2222-4222-8222-222222222222';
const now = '2026-06-01T00:00:00.000Z';

beforeAll(async () => {
  db = await createTestTable();
  await putOrganization(db, { id: ORG, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
});

const event = (token: string): APIGatewayRequestAuthorizerEvent =>
  ({
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:eu-central-1:111111111111:api/v1/GET/v1/organizations/${ORG}/audit`,
    headers: { Authorization: `Bearer ${token}` },
    requestContext: { requestId: 'req-1' },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

describe('usage identifiers', () => {
  it('are handed to API Gateway by the authorizer for every allowed key', async () => {
    const { token, record } = await issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'Payroll', scopes: ['audit:read'], now });
    const result = await authorizer(event(token));
    expect(result.usageIdentifierKey).toBe(usageIdentifierKey(record.keyId));
    expect(result.usageIdentifierKey!.length).toBeGreaterThanOrEqual(20);
    expect(result.usageIdentifierKey).not.toContain(token.split('.')[1]);
  });

  it('are registered before the key is stored: a failed registration stores no key', async () => {
    const registered: string[] = [];
    const { record } = await issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'Ok', scopes: ['audit:read'], now }, undefined, async (r) => {
      registered.push(r.keyId);
    });
    expect(registered).toEqual([record.keyId]);

    let attempted: string | undefined;
    await expect(
      issueApiKey(db, { organizationId: ORG, environment: 'TEST', label: 'Fails', scopes: ['audit:read'], now }, undefined, async (r) => {
        attempted = r.keyId;
        throw new Error('API Gateway unreachable');
      }),
    ).rejects.toThrow(/unreachable/);
    expect(await getApiKey(db, attempted!)).toBeUndefined();
  });
});
