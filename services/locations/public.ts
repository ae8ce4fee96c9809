/**
 * What other areas may use of locations (their declared port): key builders to read a
 * location in a batch, the existence check their transactions carry, and the seed's writers.
 */
export { getLocation, indexLocation, LOCATION_LABEL, locationExistsCheck, locationKeys, putLocation, type Location } from './store';
