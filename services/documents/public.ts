/**
 * What other areas may use of documents (their declared port): reads by id, the response
 * mapper of a document, the AVAILABLE-and-not-archived check their transactions carry
 * (messages' attachments), and the DOCUMENT_NOT_AVAILABLE problem they answer with.
 */
export { documentResponse, documentResponseSchema } from './schemas';
export { DOCUMENT_LABEL, linkableDocumentCheck, getDocument, getDocuments } from './store';
export { PROBLEMS as DOCUMENT_PROBLEMS } from './problems';
export type { Document } from './model';
