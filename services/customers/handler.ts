import { randomBytes, randomUUID } from 'node:crypto';
import { hasScope, type Principal } from '../shared/auth/principal';
import { defaultDb } from '../shared/ddb/client';
import { found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { listPage } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { customersArea } from './area';
import { createCustomer, customerEtag, updateCustomer, type Customer, type CustomerPorts } from './domain';
import { activateGrant, createGrant, grantEtag, revokeGrant } from './domain-access';
import { acknowledgeFeedback, createFeedback, feedbackEtag, resolveFeedback } from './domain-feedback';
import type { Feedback, Grant } from './model';
import { customerResponse, feedbackResponse, grantResponse, type LinkedContact } from './schemas';
import { customersStore, getCustomer, getFeedback, getGrant, linkedContacts, listCustomers, listFeedback, listGrants } from './store';

/** Contact values of these customers, by customer id: only for keys that hold contacts:read. */
async function contactsOf(principal: Principal, customers: readonly Customer[]): Promise<Map<string, LinkedContact[]> | undefined> {
  if (!hasScope(principal, 'contacts:read')) return undefined;
  const contacts = await linkedContacts(defaultDb(), principal.organizationId, customers.flatMap((c) => c.contactIds));
  return new Map(customers.map((c) => [c.id, c.contactIds.map((id) => contacts.get(id)).filter((k): k is NonNullable<typeof k> => k !== undefined)]));
}

async function customerResult(principal: Principal, c: Customer, status: 200 | 201, orgPath: string): Promise<HttpResult> {
  const body = customerResponse(c, (await contactsOf(principal, [c]))?.get(c.id));
  return status === 201 ? created(body, { ETag: customerEtag(c), Location: `${orgPath}/customers/${c.id}` }) : ok(body, { ETag: customerEtag(c) });
}

const grantResult = (g: Grant): HttpResult => ok(grantResponse(g, new Date()), { ETag: grantEtag(g) });
const feedbackResult = (f: Feedback): HttpResult => ok(feedbackResponse(f), { ETag: feedbackEtag(f) });

/** 256 random bits, base64url, with a prefix that tells what it is when it turns up somewhere. */
const newInvitationSecret = (): string => `wfm_inv_${randomBytes(32).toString('base64url')}`;

export const handler = areaHandler(customersArea, {
  ports: (unit): CustomerPorts => ({ store: customersStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID, newSecret: newInvitationSecret }),
  operations: {
    async listCustomers(request) {
      const { query } = request;
      return ok(
        await listPage(
          request,
          (page) => listCustomers(defaultDb(), request.principal.organizationId, { archived: query.archived ?? false, q: query.q, ...page }),
          async (items) => {
            const contacts = await contactsOf(request.principal, items);
            return items.map((c) => customerResponse(c, contacts?.get(c.id)));
          },
        ),
      );
    },

    createCustomer: async (r) => customerResult(r.principal, await createCustomer(r.ports, r.actor, r.body), 201, r.orgPath),

    getCustomer: async (r) => customerResult(r.principal, found(await getCustomer(defaultDb(), r.principal.organizationId, r.params.customerId), `Customer ${r.params.customerId}`), 200, r.orgPath),

    updateCustomer: async (r) => customerResult(r.principal, await updateCustomer(r.ports, r.actor, r.params.customerId, r.ifMatch, r.body), 200, r.orgPath),

    async listCustomerAccess(request) {
      const now = new Date();
      return ok(await listPage(request, (page) => listGrants(defaultDb(), request.principal.organizationId, { customerId: request.query.customerId, ...page }), (items) => items.map((g) => grantResponse(g, now))));
    },

    async createCustomerAccess(r) {
      const { grant, invitationSecret } = await createGrant(r.ports, r.actor, r.body);
      // The secret is shown once: never stored with the idempotency record, never replayed.
      return { ...created(grantResponse(grant, new Date()), { ETag: grantEtag(grant), Location: `${r.orgPath}/customer-access/${grant.id}` }), once: { invitationSecret } };
    },

    getCustomerAccess: async (r) => grantResult(found(await getGrant(defaultDb(), r.principal.organizationId, r.params.grantId), `Customer access ${r.params.grantId}`)),

    activateCustomerAccess: async (r) => grantResult(await activateGrant(r.ports, r.actor, r.params.grantId, r.ifMatch, r.body.invitationSecret)),

    revokeCustomerAccess: async (r) => grantResult(await revokeGrant(r.ports, r.actor, r.params.grantId, r.ifMatch, r.body?.reason)),

    async listFeedback(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listFeedback(defaultDb(), request.principal.organizationId, { state: query.state, locationId: query.locationId, ...page }), (items) => items.map(feedbackResponse)));
    },

    async createFeedback(r) {
      const feedback = await createFeedback(r.ports, r.actor, r.body);
      return created(feedbackResponse(feedback), { ETag: feedbackEtag(feedback), Location: `${r.orgPath}/feedback/${feedback.id}` });
    },

    getFeedback: async (r) => feedbackResult(found(await getFeedback(defaultDb(), r.principal.organizationId, r.params.feedbackId), `Feedback ${r.params.feedbackId}`)),

    acknowledgeFeedback: async (r) => feedbackResult(await acknowledgeFeedback(r.ports, r.actor, r.params.feedbackId, r.ifMatch)),

    resolveFeedback: async (r) => feedbackResult(await resolveFeedback(r.ports, r.actor, r.params.feedbackId, r.ifMatch, r.body.resolutionNote)),
  },
});
