import { legacyAreaNamed } from '../legacy-areas';
import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { createHandler } from '../shared/http/handler';
import { idempotentWrite, toStored } from '../shared/http/idempotent';
import { requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { ok, type ApiRequest } from '../shared/http/request';
import { parseBody } from '../shared/http/validation';
import type { JsonValue } from '../shared/json';
import { organizationEtag, readOrganization, settingsEtag, updateSettings, type OrganizationDeps } from './domain';
import { assertNoReadOnlySettings, organizationResponse, settingsPatchSchema, settingsResponse } from './schemas';
import { dynamoOrganizationStore } from './store';
import type { Organization } from '../organizations/store';

let deps: OrganizationDeps | undefined;
const organizationDeps = (): OrganizationDeps => (deps ??= { store: dynamoOrganizationStore(defaultDb()), now: () => new Date(), newId: randomUUID });

const settingsResult = (org: Organization) => ok(settingsResponse(org), { ETag: settingsEtag(org) });

export const handler = createHandler({
  area: legacyAreaNamed('organization'),
  operations: {
    async getOrganization(request) {
      const org = await readOrganization(organizationDeps(), request.principal.organizationId);
      return ok(organizationResponse(org), { ETag: organizationEtag(org) });
    },

    async getSettings(request) {
      return settingsResult(await readOrganization(organizationDeps(), request.principal.organizationId));
    },

    async updateSettings(request: ApiRequest) {
      const key = requireIdempotencyKey(request);
      const ifMatch = requireIfMatch(request);
      assertNoReadOnlySettings(request.body);
      const patch = parseBody(settingsPatchSchema, request.body);
      const input: JsonValue = { body: (request.body ?? null) as JsonValue, ifMatch };
      // The idempotency record of the response is committed in the change's own transaction.
      return idempotentWrite(defaultDb(), request, key, input, async (complete) => {
        const actor = { principal: request.principal, requestId: request.requestId };
        const after = await updateSettings(organizationDeps(), actor, ifMatch, patch, async (planned) => [await complete(toStored(settingsResult(planned)))]);
        return settingsResult(after);
      });
    },
  },
});
