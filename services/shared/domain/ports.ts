/**
 * What every use case gets besides its store: the clock and new ids, so tests pass fixed ones
 * and the domain never reads the system clock or a random source itself.
 */
export interface UseCasePorts<S> {
  readonly store: S;
  readonly now: () => Date;
  readonly newId: () => string;
}
