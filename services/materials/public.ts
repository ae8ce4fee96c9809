/** What other areas may use of materials (their declared port): the overview's search pages materials with `q` (services/overview). */
export { type Material } from './model';
export { listMaterials } from './store';
