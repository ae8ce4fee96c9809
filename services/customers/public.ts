/**
 * What other modules may use of customers (its declared port): the item builders and keys
 * the demo seed writes its customers and feedback with.
 */
export { customerKeys, customerToItem, feedbackToItem, numberGuardItem, type Customer, type Feedback } from './model';
export { getCustomer } from './store';
