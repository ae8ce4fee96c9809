import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { areaHandler } from '../shared/http/area-handler';
import { ok, type HttpResult } from '../shared/http/request';
import { organizationArea } from './area';
import { organizationEtag, readOrganization, settingsEtag, updateSettings, type Organization, type OrganizationPorts } from './domain';
import { organizationResponse, settingsResponse } from './schemas';
import { organizationStore } from './store';

const settingsResult = (org: Organization): HttpResult => ok(settingsResponse(org), { ETag: settingsEtag(org) });

export const handler = areaHandler(organizationArea, {
  ports: (unit): OrganizationPorts => ({ store: organizationStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async getOrganization(request) {
      const org = await readOrganization(request.ports, request.principal.organizationId);
      return ok(organizationResponse(org), { ETag: organizationEtag(org) });
    },

    getSettings: async (request) => settingsResult(await readOrganization(request.ports, request.principal.organizationId)),

    updateSettings: async (request) => settingsResult(await updateSettings(request.ports, request.actor, request.ifMatch, request.body)),
  },
});
