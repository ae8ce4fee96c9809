import { EtagMismatchError } from '../errors';

/**
 * Strong ETags of versioned resources: `"<kind>:<id>:v<version>"` (time entries keep the
 * contract's `"time-entry:<id>:r<revision>"`). An update must name the current one in
 * If-Match (a list may name several); weak tags and `*` never match.
 */
export const entityEtag = (kind: string, id: string, version: number): string => `"${kind}:${id}:v${version}"`;

/** The ETag of one kind of versioned entity: `versionedEtag<Task>('task')(task)` is `"task:<id>:v<version>"`. */
export const versionedEtag =
  <T extends { readonly id: string; readonly version: number }>(kind: string) =>
  (entity: T): string =>
    entityEtag(kind, entity.id, entity.version);

export function assertEtag(ifMatch: string, current: string): void {
  const candidates = ifMatch.split(',').map((t) => t.trim());
  if (!candidates.includes(current)) throw new EtagMismatchError(current);
}

/**
 * An optional If-Match, honoured when sent (RFC 9110 13.1.1): nothing sent passes; sent, it must
 * name `current`, and a resource that does not exist (`current` undefined) has no ETag to match.
 */
export function assertSentEtag(ifMatch: string | undefined, current: string | undefined): void {
  if (ifMatch === undefined) return;
  if (current === undefined) throw new EtagMismatchError();
  assertEtag(ifMatch, current);
}
