/**
 * What other modules may use of customers (its declared port): the item builders and keys
 * the demo seed writes its customers (with their search words) and feedback with, and the
 * check that commerce's transactions carry (the customer exists and is not archived).
 */
export { customerKeys, customerToItem, feedbackToItem, numberGuardItem, type Customer, type Feedback } from './model';
export { CUSTOMER_LABEL, activeCustomerCheck, customerSearchItems, getCustomer } from './store';
/** The dashboard counts unresolved feedback; the overview's search pages customers (services/overview). */
export { countUnresolvedFeedback } from './store-counts';
export { listCustomers } from './store';
