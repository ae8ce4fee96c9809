import { organizationPolicy, parseMethodArn, policyAllows } from '../../services/shared/auth/policy';

const arn = (method: string, path: string, stage = 'api') => `arn:aws:execute-api:eu-central-1:123456789012:abc123/${stage}/${method}${path}`;

describe('organizationPolicy', () => {
  const policy = organizationPolicy(arn('GET', '/v1/organizations/org-a/timesheets'), 'org-a');

  it('covers every route and method of the key organization, not only the first call', () => {
    expect(policyAllows(policy, arn('GET', '/v1/organizations/org-a/timesheets'))).toBe(true);
    expect(policyAllows(policy, arn('POST', '/v1/organizations/org-a/timesheets/123/void'))).toBe(true);
    expect(policyAllows(policy, arn('PATCH', '/v1/organizations/org-a/scim/v2/Users/1'))).toBe(true);
  });

  it('covers nothing of another organization, including look-alike ids', () => {
    expect(policyAllows(policy, arn('GET', '/v1/organizations/org-b/timesheets'))).toBe(false);
    expect(policyAllows(policy, arn('GET', '/v1/organizations/org-a-b/timesheets'))).toBe(false);
    expect(policyAllows(policy, arn('GET', '/v1/organizations/org-a'))).toBe(false);
  });

  it('covers only the API that asked', () => {
    expect(policyAllows(policy, arn('GET', '/v1/organizations/org-a/timesheets').replace('abc123', 'other'))).toBe(false);
  });

  it('rejects a method ARN of an unexpected shape', () => {
    expect(parseMethodArn('arn:aws:lambda:x')).toBeUndefined();
    expect(() => organizationPolicy('nonsense', 'org-a')).toThrow(/method ARN/);
  });
});
