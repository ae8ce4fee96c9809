import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import type { PagePosition } from '../shared/ddb/paging';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { created, noContent, ok } from '../shared/http/request';
import { documentsArea } from './area';
import { archiveDocument, completeUpload, documentEtag, linkDocument, linkEtag, openDownload, openUpload, unlinkDocument, type DocumentPorts } from './domain';
import { documentResponse, locationDocumentResponse } from './schemas';
import { documentsStore, getDocument, getDocuments, listDocuments, listLinks } from './store';
import { documentObjects, documentPolicy } from './store-objects';

export const handler = areaHandler(documentsArea, {
  ports: (unit): DocumentPorts => ({ store: documentsStore(defaultDb(), unit), objects: documentObjects(), policy: documentPolicy(), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listDocuments(request) {
      const { query } = request;
      const { binding, position } = await listPosition<PagePosition>(request);
      const page = await listDocuments(defaultDb(), request.principal.organizationId, query.archived ?? false, query.limit ?? DEFAULT_LIMIT, position);
      return ok({ items: page.items.map(documentResponse), nextCursor: await nextCursor(binding, page.next) });
    },

    async createUploadSession(request) {
      const { session, document, upload } = await openUpload(request.ports, request.actor, request.body);
      return created(
        { id: session.id, documentId: document.id, state: session.state, expiresAt: session.validUntil, upload, document: documentResponse(document) },
        { ETag: documentEtag(document), Location: `${request.orgPath}/documents/${document.id}` },
      );
    },

    async completeUploadSession(request) {
      const { session, document } = await completeUpload(request.ports, request.actor, request.params.sessionId);
      return ok({ id: session.id, state: 'COMPLETED', completedAt: session.completedAt, document: documentResponse(document) }, { ETag: documentEtag(document) });
    },

    async getDocument(request) {
      const document = await getDocument(defaultDb(), request.principal.organizationId, request.params.documentId);
      if (!document) throw new NotFoundError(`Document ${request.params.documentId}`);
      return ok(documentResponse(document), { ETag: documentEtag(document) });
    },

    async archiveDocument(request) {
      const document = await archiveDocument(request.ports, request.actor, request.params.documentId, request.ifMatch);
      return ok(documentResponse(document), { ETag: documentEtag(document) });
    },

    async createDownloadSession(request) {
      const { document, download } = await openDownload(request.ports, request.actor, request.params.documentId);
      return ok({ documentId: document.id, download });
    },

    async listLocationDocuments(request) {
      const { locationId } = request.params;
      const org = request.principal.organizationId;
      const { binding, position } = await listPosition<{ after: string }>(request, { locationId });
      if (!(await request.ports.store.getLocation(org, locationId))) throw new NotFoundError(`Location ${locationId}`);
      const page = await listLinks(defaultDb(), org, locationId, request.query.limit ?? DEFAULT_LIMIT, position?.after);
      const documents = await getDocuments(defaultDb(), org, page.items.map((l) => l.documentId));
      const items = page.items.flatMap((l) => {
        const d = documents.get(l.documentId);
        return d ? [locationDocumentResponse(l, d)] : [];
      });
      return ok({ items, nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    async linkLocationDocument(request) {
      const { link, document } = await linkDocument(request.ports, request.actor, request.params.locationId, request.params.documentId, request.ifMatch);
      return ok(locationDocumentResponse(link, document), { ETag: linkEtag(link) });
    },

    async unlinkLocationDocument(request) {
      await unlinkDocument(request.ports, request.actor, request.params.locationId, request.params.documentId, request.ifMatch);
      return noContent();
    },
  },
});
