import { archiveState, newArchivable, newRecord, orNull, patched, revised } from '../../services/shared/domain/lifecycle';

interface Thing {
  readonly id: string;
  readonly name: string;
  readonly note: string | null;
  readonly tags: readonly string[];
  readonly version: number;
  readonly updatedAt: string;
}

const thing: Thing = { id: 't1', name: 'Old', note: 'kept', tags: ['a'], version: 4, updatedAt: '2026-01-01T00:00:00.000Z' };
const later = '2026-02-02T10:00:00.000Z';

describe('revised: the next version of a record', () => {
  it('applies the changes, counts the version up from the one read and stamps updatedAt', () => {
    expect(revised(thing, later, { name: 'New' })).toEqual({ ...thing, name: 'New', version: 5, updatedAt: later });
  });

  it('without changes still makes a new version (a command that only moves time)', () => {
    expect(revised(thing, later)).toEqual({ ...thing, version: 5, updatedAt: later });
  });

  it('never takes version or updatedAt from the changes: a candidate built from the record cannot keep its old ETag', () => {
    const candidate: Thing = { ...thing, name: 'New' };
    expect(revised(thing, later, candidate)).toMatchObject({ name: 'New', version: 5, updatedAt: later });
  });

  it('leaves the record read untouched', () => {
    revised(thing, later, { name: 'New' });
    expect(thing).toMatchObject({ name: 'Old', version: 4 });
  });
});

describe('patched: PATCH semantics for the named fields', () => {
  it('an absent field keeps its value, null clears it, a value replaces it', () => {
    expect(patched(thing, { name: 'New', note: null }, ['name', 'note'])).toEqual({ ...thing, name: 'New', note: null });
    expect(patched(thing, { name: undefined }, ['name', 'note'])).toEqual(thing);
  });

  it('ignores what the patch gives for fields it is not told to apply', () => {
    const patch: Partial<Thing> = { name: 'New', tags: ['b'] };
    expect(patched(thing, patch, ['note'])).toEqual(thing);
  });
});

describe('archiveState', () => {
  const active = { archived: false, archivedAt: null };
  const archived = { archived: true, archivedAt: '2026-01-05T00:00:00.000Z' };

  it('stamps archivedAt when archived now and clears it when restored', () => {
    expect(archiveState(active, true, later)).toEqual({ archived: true, archivedAt: later });
    expect(archiveState(archived, false, later)).toEqual({ archived: false, archivedAt: null });
  });

  it('keeps the first archive time when archived again', () => {
    expect(archiveState(archived, true, later)).toEqual(archived);
    expect(archiveState(active, false, later)).toEqual(active);
  });
});

describe('newRecord and newArchivable: what every new record starts with', () => {
  it('names the id and organization given, at version 1, created and updated now', () => {
    expect(newRecord('r1', 'org1', later)).toEqual({ id: 'r1', organizationId: 'org1', version: 1, createdAt: later, updatedAt: later });
  });

  it('an archivable record starts active, never archived', () => {
    expect(newArchivable('r1', 'org1', later)).toEqual({ id: 'r1', organizationId: 'org1', version: 1, createdAt: later, updatedAt: later, archived: false, archivedAt: null });
  });
});

describe('orNull: the optional members of a create input, every one present', () => {
  it('keeps a value given (falsy ones too), makes a left-out or null member null, and takes only the fields named', () => {
    const input: { a?: string; b?: number | null; c?: string; d?: string } = { a: '', b: 0, d: 'not named' };
    expect(orNull(input, ['a', 'b', 'c'])).toEqual({ a: '', b: 0, c: null });
    expect(orNull({ b: null } as typeof input, ['b'])).toEqual({ b: null });
  });
});
