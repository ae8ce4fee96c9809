import { DOCUMENT_PROBLEMS } from '../documents/public';
import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { MAX_RECIPIENTS } from './domain';
import { PROBLEMS } from './problems';
import { attachBody, attachmentResponseSchema, createMessageBody, DOCUMENT_VALUES_NOTE, emptyBody, markReadBody, messageListQuery, messageResponseSchema, pageQuery, recipientResponseSchema, updateMessageBody } from './schemas';

/** Messages from the organization to employees: drafts, sending to a resolved audience, retracting, read state, attachments. */
export const messagesArea = defineArea({
  name: 'messages',
  api: 'public',
  description:
    "Messages from the organization to employees, a location's team or everyone: DRAFT -> SENT (immutable) -> RETRACTED, recipients resolved at send with their read state, and attachments that reference AVAILABLE documents.",
  // BatchWriteItem: a send above 95 recipients writes them in batches ahead of its commit (domain.ts sendMessage).
  permissions: { table: [...READ_WRITE, 'BatchWriteItem'], cursorSecret: true, restrictedDataKey: false },
  problems: PROBLEMS,
  demoSeed: true,
  auditEntityTypes: ['message'],
  schemas: { Message: messageResponseSchema, MessageList: pageSchema(messageResponseSchema), MessageRecipient: recipientResponseSchema, MessageRecipientList: pageSchema(recipientResponseSchema), MessageAttachment: attachmentResponseSchema, MessageAttachmentList: pageSchema(attachmentResponseSchema) },
  routes: {
    listMessages: listRoute({
      path: '/messages',
      scopes: ['messages:read'],
      summary: 'List messages',
      description: 'Messages oldest first (createdAt, then id), optionally in one state; with `employeeId`, the messages sent to that employee in send order.',
      query: messageListQuery,
      schema: pageSchema(messageResponseSchema),
      returns: 'A page of messages.',
    }),
    createMessage: createRoute({
      path: '/messages',
      scopes: ['messages:write'],
      summary: 'Create a draft message',
      description:
        'Creates a DRAFT with subject, body and audience. Explicit employees and a location must exist in this organization, and the location must not be archived (422 at the id; the audience is resolved at send). Nothing is sent until POST /messages/{messageId}/send.',
      body: createMessageBody,
      schema: messageResponseSchema,
      returns: 'The draft.',
    }),
    getMessage: readRoute({
      path: '/messages/{messageId}',
      scopes: ['messages:read'],
      summary: 'Get one message',
      description: 'One message in any state.',
      schema: messageResponseSchema,
      returns: 'The message.',
    }),
    updateMessage: updateRoute({
      path: '/messages/{messageId}',
      scopes: ['messages:write'],
      summary: 'Change a draft',
      description: 'Changes subject, body or audience of a DRAFT (partial). A sent message is immutable (409 MESSAGE_SENT); a retracted one 409 MESSAGE_RETRACTED.',
      body: updateMessageBody,
      idempotencyKey: 'optional',
      schema: messageResponseSchema,
      returns: 'The draft.',
      problems: [PROBLEMS.MESSAGE_SENT, PROBLEMS.MESSAGE_RETRACTED],
    }),
    sendMessage: actionRoute({
      path: '/messages/{messageId}/send',
      scopes: ['messages:write'],
      summary: 'Send a draft',
      description:
        `DRAFT -> SENT. Resolves the audience to concrete active employees now (explicit employees that are still active; a location's team: active employees with a PUBLISHED shift there starting within 14 days before or after now; everyone: the active employees) and writes one recipient per employee; recipients become visible all at once, when the message commits as SENT (a send that fails leaves the draft as it was and no recipient). An audience of nobody is 422 MESSAGE_NO_RECIPIENTS, of more than ${MAX_RECIPIENTS} employees 422 MESSAGE_TOO_MANY_RECIPIENTS (\`maxRecipients\`). The body may be absent.`,
      body: emptyBody,
      bodyOptional: true,
      schema: messageResponseSchema,
      returns: 'The sent message.',
      problems: [PROBLEMS.MESSAGE_SENT, PROBLEMS.MESSAGE_RETRACTED, PROBLEMS.MESSAGE_NO_RECIPIENTS, PROBLEMS.MESSAGE_TOO_MANY_RECIPIENTS],
    }),
    retractMessage: actionRoute({
      path: '/messages/{messageId}/retract',
      scopes: ['messages:write'],
      summary: 'Retract a message',
      description: 'SENT or DRAFT -> RETRACTED: the message is withdrawn (a draft is discarded unsent) and kept, with its recipients and their read state. Retracting again is 409 MESSAGE_RETRACTED. The body may be absent.',
      body: emptyBody,
      bodyOptional: true,
      schema: messageResponseSchema,
      returns: 'The retracted message.',
      problems: [PROBLEMS.MESSAGE_RETRACTED],
    }),
    listMessageRecipients: listRoute({
      path: '/messages/{messageId}/recipients',
      scopes: ['messages:read'],
      summary: 'Recipients and their read state',
      description: 'The employees a sent message went to, by employee id, each with its read state. A draft has none yet.',
      query: pageQuery,
      schema: pageSchema(recipientResponseSchema),
      returns: 'A page of recipients.',
    }),
    markMessageRead: {
      method: 'POST',
      path: '/messages/{messageId}/recipients/{employeeId}/read',
      scopes: ['messages:write'],
      summary: 'Report that a recipient read the message',
      description:
        "For the integration that shows messages to employees (e.g. the employee app's backend): records when the employee read the message. Idempotent: the first report wins, later ones answer the recipient as it is. An employee who is not a recipient is 404; a retracted message takes no new reads (409 MESSAGE_RETRACTED). The body may be absent.",
      body: markReadBody,
      bodyOptional: true,
      idempotencyKey: 'optional',
      success: { status: 200, description: 'The recipient with its read state.', schema: recipientResponseSchema },
      problems: [PROBLEMS.MESSAGE_RETRACTED],
    },
    listMessageAttachments: listRoute({
      path: '/messages/{messageId}/attachments',
      scopes: ['messages:read'],
      summary: 'Attachments of a message',
      description: `The documents attached to the message, in the order attached, each with the document (at most 10; \`limit\` and \`cursor\` page them as on every list). ${DOCUMENT_VALUES_NOTE}`,
      query: pageQuery,
      schema: pageSchema(attachmentResponseSchema),
      returns: 'The attachments.',
    }),
    // A create with an optional If-Match (the message's ETag): a contract of its own.
    addMessageAttachment: {
      method: 'POST',
      path: '/messages/{messageId}/attachments',
      scopes: ['messages:write'],
      summary: 'Attach a document to a draft',
      description: `Attaches an AVAILABLE document of this organization to a DRAFT (a reference, not a copy); the draft's version rises, so its ETag changes. If-Match (the message's ETag) is optional and honoured when sent (412 ETAG_MISMATCH). A document that does not exist in this organization, or is archived, is 422 at /documentId; one that is not AVAILABLE 409 DOCUMENT_NOT_AVAILABLE (both checked again in the transaction); a sent message 409 MESSAGE_SENT. Attaching an attached document changes nothing and answers 200 with the attachment as it is (also once the document is archived); a new attachment answers 201. At most 10 attachments. ${DOCUMENT_VALUES_NOTE}`,
      body: attachBody,
      idempotencyKey: 'required',
      ifMatch: 'optional',
      success: {
        status: 201,
        description: "The new attachment; ETag is the draft message's new one.",
        schema: attachmentResponseSchema,
        headers: ['ETag', 'Location'],
        alsoStatus: { status: 200, description: "The document was attached already: the attachment as it is, nothing changed; ETag is the message's current one." },
      },
      problems: [PROBLEMS.MESSAGE_SENT, PROBLEMS.MESSAGE_RETRACTED, DOCUMENT_PROBLEMS.DOCUMENT_NOT_AVAILABLE],
    },
    getMessageAttachment: readRoute({
      path: '/messages/{messageId}/attachments/{documentId}',
      scopes: ['messages:read'],
      summary: 'One attachment of a message',
      description: `The attachment with its document (where an attach answers Location); 404 when the document is not attached to this message. ${DOCUMENT_VALUES_NOTE}`,
      schema: attachmentResponseSchema,
      returns: "The attachment; ETag is the message's.",
    }),
    removeMessageAttachment: {
      method: 'DELETE',
      path: '/messages/{messageId}/attachments/{documentId}',
      scopes: ['messages:write'],
      summary: 'Remove an attachment from a draft',
      description:
        "Removes the attachment from a DRAFT (409 once sent); the document itself stays. If-Match (the message's ETag) is optional and honoured when sent (412 ETAG_MISMATCH). 404 when the document is not attached, with or without If-Match. ETag is the draft message's new one.",
      idempotencyKey: 'optional',
      ifMatch: 'optional',
      success: { status: 204, description: 'Removed.', headers: ['ETag'] },
      problems: [PROBLEMS.MESSAGE_SENT, PROBLEMS.MESSAGE_RETRACTED],
    },
  },
});
