import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError, found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPage, listPosition, nextCursor } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { recruitmentArea } from './area';
import { candidateEtag, completeErasure, createCandidate, eraseCandidate, hireCandidate, messageEtag, moveCandidate, postMessage, updateCandidate, type Candidate, type RecruitmentPorts } from './domain';
import { candidateMessageResponse, candidateResponse } from './schemas';
import { getCandidate, getMessage, listCandidates, listMessages, recruitmentStore } from './store';

const candidatePath = (orgPath: string, id: string) => `${orgPath}/recruitment/candidates/${id}`;

const candidateResult = (c: Candidate, status: 200 | 201, orgPath: string): HttpResult =>
  status === 201 ? created(candidateResponse(c), { ETag: candidateEtag(c), Location: candidatePath(orgPath, c.id) }) : ok(candidateResponse(c), { ETag: candidateEtag(c) });

export const handler = areaHandler(recruitmentArea, {
  ports: (unit): RecruitmentPorts => ({ store: recruitmentStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listCandidates(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listCandidates(defaultDb(), request.principal.organizationId, { stage: query.stage, q: query.q, ...page }), (items) => items.map(candidateResponse)));
    },

    createCandidate: async (r) => candidateResult(await createCandidate(r.ports, r.actor, r.body), 201, r.orgPath),

    getCandidate: async (request) => candidateResult(found(await getCandidate(defaultDb(), request.principal.organizationId, request.params.candidateId), `Candidate ${request.params.candidateId}`), 200, request.orgPath),

    updateCandidate: async (r) => candidateResult(await updateCandidate(r.ports, r.actor, r.params.candidateId, r.ifMatch, r.body), 200, r.orgPath),

    moveCandidate: async (r) => candidateResult(await moveCandidate(r.ports, r.actor, r.params.candidateId, r.ifMatch, r.body.stage), 200, r.orgPath),

    hireCandidate: async (r) => candidateResult((await hireCandidate(r.ports, r.actor, r.params.candidateId, r.ifMatch, r.body ?? {})).candidate, 200, r.orgPath),

    eraseCandidate: async (r) => candidateResult(await eraseCandidate(r.ports, r.actor, r.params.candidateId, r.ifMatch), 200, r.orgPath),

    async listCandidateMessages(request) {
      const { candidateId } = request.params;
      const org = request.principal.organizationId;
      const { binding, position } = await listPosition<{ after: string }>(request, { candidateId });
      if (!(await getCandidate(defaultDb(), org, candidateId))) throw new NotFoundError(`Candidate ${candidateId}`);
      const page = await listMessages(defaultDb(), org, candidateId, request.query.limit ?? DEFAULT_LIMIT, position?.after);
      return ok({ items: page.items.map(candidateMessageResponse), nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    async postCandidateMessage(request) {
      const message = await postMessage(request.ports, request.actor, request.params.candidateId, request.body);
      return created(candidateMessageResponse(message), { ETag: messageEtag(message), Location: `${candidatePath(request.orgPath, message.candidateId)}/messages/${message.id}` });
    },

    async getCandidateMessage(request) {
      const { candidateId, messageId } = request.params;
      const message = found(await getMessage(defaultDb(), request.principal.organizationId, candidateId, messageId), `Message ${messageId} of candidate ${candidateId}`);
      return ok(candidateMessageResponse(message), { ETag: messageEtag(message) });
    },
  },
  // A retry of an erasure whose replacement of stored responses failed after its commit
  // replays the stored 200: the replacement completes first.
  afterReplay: {
    eraseCandidate: (r) => completeErasure(r.ports, r.actor, r.params.candidateId),
  },
});
