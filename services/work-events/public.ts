/** What other areas may use of work events (their declared port): the evidence channel appends them. */
export { type WorkEvent } from './model';
export { EVENT_LABEL, getWorkEvent, putRestrictedEventData, putWorkEvent } from './store';
/** The dashboard counts events needing review (services/overview). */
export { countEventsNeedingReview } from './store-counts';
