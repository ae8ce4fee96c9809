/**
 * What other areas may use of locations (their declared port): key builders to read a
 * location in a batch, the existence check their transactions carry, and the seed's writers.
 */
export { locationKeys, type Location, type LocationRecord } from './model';
export { activeLocationCheck, getLocation, indexLocation, LOCATION_LABEL, locationExistsCheck, locationState, locationStates, putLocation } from './store';
/** Reusable contacts (organization-owned personal data): customers link them and check them in their transactions. */
export { contactKeys, type Contact } from './model';
export { CONTACT_LABEL, getContacts } from './store-contacts';
/** The overview's search pages locations and contacts with `q` (services/overview). */
export { listLocations } from './store';
export { listContacts } from './store-contacts';
