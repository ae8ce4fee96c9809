import type { Db } from '../shared/ddb/client';
import { movedOn, searchUpkeep, versionedPut } from '../shared/ddb/entity';
import { getByIds, listPage, type ListQuery, type Page } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import { searchWords } from '../shared/ddb/search';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { ContactChange } from './domain';
import { CONTACT_SEARCH_SCOPE, contactFromItem, contactKeys, contactToItem, type Contact } from './model';

/**
 * The DynamoDB adapter of reusable contacts (keys and item shapes: model.ts). Contacts are
 * listed in creation order: no contact value is part of a table or index key, and the search
 * index holds folded words, as `q` needs them.
 */

export const CONTACT_LABEL = 'contact';

/** The words `q` finds a contact by: name, e-mail, phone as written and as its digits. */
export const contactSearchWords = (c: Pick<Contact, 'name' | 'email' | 'phone'>): string[] => searchWords([c.name, c.email, c.phone, c.phone?.replace(/\D/g, '')]);

const searchState = (c: Contact) => ({ scope: CONTACT_SEARCH_SCOPE, words: contactSearchWords(c) });

export const getContact = (db: Db, organizationId: string, id: string): Promise<Contact | undefined> => getOne(db, contactKeys.contact(organizationId, id), contactFromItem);

/** The contacts of these ids that exist in the organization. */
export const getContacts = (db: Db, organizationId: string, ids: readonly string[]): Promise<Map<string, Contact>> =>
  getByIds(db, ids, (id) => contactKeys.contact(organizationId, id), contactFromItem);

/**
 * Stages a contact change: the contact (create: not there yet; change: still at the version
 * read, else the use case runs again and answers 412) and its search words.
 */
export function saveContact(unit: UnitOfWork, change: ContactChange): void {
  const { before, after } = change;
  unit.stage({
    items: [versionedPut(CONTACT_LABEL, contactToItem(after), before), ...searchUpkeep(after.organizationId, after.id, before && searchState(before), searchState(after))],
    audit: change.audit,
    explain: movedOn(CONTACT_LABEL),
  });
}

/** One page of an organization's contacts: in creation order, or with `q` (name, e-mail, phone). */
export const listContacts = (db: Db, organizationId: string, query: ListQuery): Promise<Page<Contact>> =>
  listPage(db, organizationId, query, {
    partition: () => contactKeys.byOrganization(organizationId).GSI1PK,
    searchScope: () => CONTACT_SEARCH_SCOPE,
    load: (ids) => getContacts(db, organizationId, ids),
    fromItem: contactFromItem,
  });
