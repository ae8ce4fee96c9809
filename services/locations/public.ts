/**
 * What other areas may use of locations (their declared port): key builders to read a
 * location in a batch, the existence check their transactions carry, and the seed's writers.
 */
export { getLocation, indexLocation, LOCATION_LABEL, locationExistsCheck, locationKeys, putLocation, type Location } from './store';
/** Reusable contacts (organization-owned personal data): customers link them and check them in their transactions. */
export { CONTACT_LABEL, contactKeys, getContacts, type Contact } from './contact-store';
