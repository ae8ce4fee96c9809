import type { Actor } from '../shared/domain/actor';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { newRecord, orNull, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import { audit, locationRefusal, type CustomerPorts } from './domain';
import type { Feedback } from './model';
import { PROBLEMS } from './problems';

/**
 * Feedback about the work at a location: rating 1..5, category, optional comment, optional
 * customer, inspection and visit confirmation. `OPEN` -> `ACKNOWLEDGED` -> `RESOLVED` (also `OPEN` -> `RESOLVED`),
 * with a resolution note; never deleted. The comment is free text a person wrote: it never
 * reaches an audit entry or a log.
 */

export const feedbackEtag = versionedEtag<Feedback>('feedback');

export interface FeedbackInput {
  readonly rating: number;
  readonly comment?: string | null;
  readonly category: Feedback['category'];
  readonly locationId: string;
  readonly customerId?: string;
  readonly inspectionId?: string;
  readonly visitConfirmationId?: string;
}

/**
 * Records feedback (OPEN). 1. The location exists and is not archived (422 /locationId); a
 * customer, when named, exists, is not archived and links that location (422 /customerId); an
 * inspection, when named, exists at that location (422 /inspectionId); so does a visit
 * confirmation, when named (422 /visitConfirmationId). 2. Stage it with checks that what it
 * references is still so (the location active, the customer at the version read, the
 * inspection and the visit confirmation existing).
 */
export async function createFeedback(ports: CustomerPorts, actor: Actor, input: FeedbackInput): Promise<Feedback> {
  const org = actor.principal.organizationId;
  const [locations, customer, inspectionAt, visitAt] = await Promise.all([
    ports.store.locationStates(org, [input.locationId]),
    input.customerId ? ports.store.getCustomer(org, input.customerId) : Promise.resolve(undefined),
    input.inspectionId ? ports.store.inspectionLocation(org, input.inspectionId) : Promise.resolve(undefined),
    input.visitConfirmationId ? ports.store.visitConfirmationLocation(org, input.visitConfirmationId) : Promise.resolve(undefined),
  ]);
  const errors: FieldError[] = [];
  const locationProblem = locationRefusal(input.locationId, locations.get(input.locationId));
  if (locationProblem) errors.push({ pointer: '/locationId', detail: locationProblem });
  if (input.customerId && !customer) errors.push({ pointer: '/customerId', detail: `Customer ${input.customerId} does not exist in this organization.` });
  else if (customer?.archived) errors.push({ pointer: '/customerId', detail: `Customer ${customer.id} is archived; restore it before referring to it.` });
  else if (customer && !customer.locationIds.includes(input.locationId)) errors.push({ pointer: '/customerId', detail: `Location ${input.locationId} is not linked to customer ${customer.id}.` });
  if (input.inspectionId && inspectionAt === undefined) errors.push({ pointer: '/inspectionId', detail: `Inspection ${input.inspectionId} does not exist in this organization.` });
  else if (input.inspectionId && inspectionAt !== input.locationId) errors.push({ pointer: '/inspectionId', detail: `Inspection ${input.inspectionId} was not made at location ${input.locationId}.` });
  if (input.visitConfirmationId && visitAt === undefined) errors.push({ pointer: '/visitConfirmationId', detail: `Visit confirmation ${input.visitConfirmationId} does not exist in this organization.` });
  else if (input.visitConfirmationId && visitAt !== input.locationId) errors.push({ pointer: '/visitConfirmationId', detail: `Visit confirmation ${input.visitConfirmationId} was not made at location ${input.locationId}.` });
  if (errors.length > 0) throw new ValidationError(errors);
  const now = ports.now().toISOString();
  const feedback: Feedback = {
    ...newRecord(ports.newId(), org, now),
    rating: input.rating,
    category: input.category,
    locationId: input.locationId,
    ...orNull(input, ['comment', 'customerId', 'inspectionId', 'visitConfirmationId']),
    state: 'OPEN',
    resolutionNote: null,
    acknowledgedAt: null,
    resolvedAt: null,
  };
  const references = Object.fromEntries(Object.entries({ locationId: input.locationId, customerId: input.customerId, inspectionId: input.inspectionId, visitConfirmationId: input.visitConfirmationId }).filter((e): e is [string, string] => e[1] !== undefined));
  ports.store.saveFeedback({
    after: feedback,
    customer,
    audit: audit(ports, actor, now, { action: 'feedback.created', entity: { type: 'feedback', id: feedback.id }, references, after: { state: 'OPEN', rating: feedback.rating, category: feedback.category } }),
  });
  return feedback;
}

async function readFeedback(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string): Promise<Feedback> {
  const feedback = await ports.store.getFeedback(actor.principal.organizationId, id);
  if (!feedback) throw new NotFoundError(`Feedback ${id}`);
  assertEtag(ifMatch, feedbackEtag(feedback));
  return feedback;
}

/** OPEN -> ACKNOWLEDGED. Already acknowledged: 409 FEEDBACK_ACKNOWLEDGED; resolved: 409 FEEDBACK_RESOLVED. */
export async function acknowledgeFeedback(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string): Promise<Feedback> {
  const feedback = await readFeedback(ports, actor, id, ifMatch);
  if (feedback.state === 'RESOLVED') throw new AppError(PROBLEMS.FEEDBACK_RESOLVED, `Feedback ${id} is resolved; resolved feedback is final.`);
  if (feedback.state === 'ACKNOWLEDGED') throw new AppError(PROBLEMS.FEEDBACK_ACKNOWLEDGED, `Feedback ${id} is already acknowledged.`);
  const at = ports.now().toISOString();
  const next: Feedback = revised(feedback, at, { state: 'ACKNOWLEDGED', acknowledgedAt: at });
  ports.store.saveFeedback({ before: feedback, after: next, audit: audit(ports, actor, at, { action: 'feedback.acknowledged', entity: { type: 'feedback', id }, before: { state: feedback.state }, after: { state: next.state } }) });
  return next;
}

/** OPEN or ACKNOWLEDGED -> RESOLVED with a resolution note; resolved feedback is final (409 FEEDBACK_RESOLVED). */
export async function resolveFeedback(ports: CustomerPorts, actor: Actor, id: string, ifMatch: string, resolutionNote: string): Promise<Feedback> {
  const feedback = await readFeedback(ports, actor, id, ifMatch);
  if (feedback.state === 'RESOLVED') throw new AppError(PROBLEMS.FEEDBACK_RESOLVED, `Feedback ${id} is already resolved.`);
  const at = ports.now().toISOString();
  const next: Feedback = revised(feedback, at, { state: 'RESOLVED', resolutionNote, resolvedAt: at });
  ports.store.saveFeedback({
    before: feedback,
    after: next,
    audit: audit(ports, actor, at, { action: 'feedback.resolved', entity: { type: 'feedback', id }, before: { state: feedback.state }, after: { state: next.state }, changedAttributes: ['resolutionNote', 'state'] }),
  });
  return next;
}
