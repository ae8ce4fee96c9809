import { randomUUID } from 'node:crypto';
import { DOCUMENT_PROBLEMS, getDocuments, type Document } from '../documents/public';
import { hasScope, type Principal } from '../shared/auth/principal';
import { defaultDb } from '../shared/ddb/client';
import type { PagePosition } from '../shared/ddb/paging';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPage, listPosition, nextCursor, pageOf } from '../shared/http/list';
import { created, noContent, ok } from '../shared/http/request';
import { messagesArea } from './area';
import { attachDocument, createMessage, detachDocument, markRead, messageEtag, retractMessage, sendMessage, updateMessage, type MessagePorts } from './domain';
import { attachmentResponse, messageResponse, recipientResponse } from './schemas';
import { getMessage, listMessages, listReceived, listRecipients, messagesStore } from './store';
import type { Message } from './model';

const messageResult = (m: Message) => ok(messageResponse(m), { ETag: messageEtag(m) });

/**
 * The attached documents of these ids, when the key may read documents (documents:read, as
 * GET /documents/{id} needs): messages:read alone shows an attachment's id, not the document.
 */
async function visibleDocuments(principal: Principal, ids: readonly string[]): Promise<ReadonlyMap<string, Document> | undefined> {
  return hasScope(principal, 'documents:read') ? getDocuments(defaultDb(), principal.organizationId, ids) : undefined;
}

async function existingMessage(org: string, id: string): Promise<Message> {
  const message = await getMessage(defaultDb(), org, id);
  if (!message) throw new NotFoundError(`Message ${id}`);
  return message;
}

export const handler = areaHandler(messagesArea, {
  ports: (unit): MessagePorts => ({ store: messagesStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listMessages(request) {
      const { query } = request;
      const org = request.principal.organizationId;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const { binding, position } = await listPosition<PagePosition>(request);
      if (query.employeeId) {
        // The employee's recipient items that count, in send order, with their messages (state filtered here).
        const page = await listReceived(defaultDb(), org, query.employeeId, limit, position);
        const items = page.items.flatMap(({ message: m }) => (!query.state || m.state === query.state ? [messageResponse(m)] : []));
        return ok({ items, nextCursor: await nextCursor(binding, page.next) });
      }
      const page = await listMessages(defaultDb(), org, { ...(query.state ? { state: query.state } : {}), limit, ...(position ? { after: position } : {}) });
      return ok({ items: page.items.map(messageResponse), nextCursor: await nextCursor(binding, page.next) });
    },

    async createMessage(request) {
      const message = await createMessage(request.ports, request.actor, request.body);
      return created(messageResponse(message), { ETag: messageEtag(message), Location: `${request.orgPath}/messages/${message.id}` });
    },

    getMessage: async (request) => messageResult(await existingMessage(request.principal.organizationId, request.params.messageId)),

    updateMessage: async (request) => messageResult(await updateMessage(request.ports, request.actor, request.params.messageId, request.ifMatch, request.body)),

    sendMessage: async (request) => messageResult(await sendMessage(request.ports, request.actor, request.params.messageId, request.ifMatch)),

    retractMessage: async (request) => messageResult(await retractMessage(request.ports, request.actor, request.params.messageId, request.ifMatch)),

    async listMessageRecipients(request) {
      const { messageId } = request.params;
      const org = request.principal.organizationId;
      const { binding, position } = await listPosition<{ after: string }>(request, { messageId });
      const message = await existingMessage(org, messageId);
      const page = await listRecipients(defaultDb(), message, request.query.limit ?? DEFAULT_LIMIT, position?.after);
      return ok({ items: page.items.map(recipientResponse), nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    async markMessageRead(request) {
      const recipient = await markRead(request.ports, request.actor, request.params.messageId, request.params.employeeId, request.body?.readAt);
      return ok(recipientResponse(recipient));
    },

    async listMessageAttachments(request) {
      const { messageId } = request.params;
      const org = request.principal.organizationId;
      const message = await existingMessage(org, messageId);
      return ok(
        await listPage(
          request,
          async (page) => pageOf(message.attachments, (a) => a.documentId, page.limit, page.after),
          async (attachments) => {
            const documents = await visibleDocuments(request.principal, attachments.map((a) => a.documentId));
            return attachments.map((a) => attachmentResponse(messageId, a, documents));
          },
          { messageId },
        ),
      );
    },

    async getMessageAttachment(request) {
      const { messageId, documentId } = request.params;
      const org = request.principal.organizationId;
      const message = await existingMessage(org, messageId);
      const attachment = message.attachments.find((a) => a.documentId === documentId);
      if (!attachment) throw new NotFoundError(`Attachment ${documentId} of message ${messageId}`);
      return ok(attachmentResponse(messageId, attachment, await visibleDocuments(request.principal, [documentId])), { ETag: messageEtag(message) });
    },

    async addMessageAttachment(request) {
      const { messageId } = request.params;
      const { message, attachment, added } = await attachDocument(request.ports, request.actor, messageId, request.body.documentId, DOCUMENT_PROBLEMS.DOCUMENT_NOT_AVAILABLE, request.ifMatch);
      const body = attachmentResponse(messageId, attachment, await visibleDocuments(request.principal, [attachment.documentId]));
      const headers = { ETag: messageEtag(message), Location: `${request.orgPath}/messages/${messageId}/attachments/${attachment.documentId}` };
      return added ? created(body, headers) : ok(body, headers);
    },

    async removeMessageAttachment(request) {
      const message = await detachDocument(request.ports, request.actor, request.params.messageId, request.params.documentId, request.ifMatch);
      return noContent({ ETag: messageEtag(message) });
    },
  },
});
