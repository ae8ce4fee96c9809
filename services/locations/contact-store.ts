import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { auditItem, type AuditEntry } from '../audit/model';
import type { Db } from '../shared/ddb/client';
import { searchIndexItems, searchWords } from '../shared/ddb/search';
import { commit, TransactionCancelledError, type TxItem } from '../shared/ddb/transaction';
import { EtagMismatchError } from '../shared/errors';
import { getByIds, listPage, type ListQuery, type Page } from '../shared/ddb/paging';

/**
 * DynamoDB adapter of reusable contacts (organization-owned personal data):
 *   contact  PK ORG#<org>#CONTACT#<id>  SK CONTACT
 *   GSI1 ORG#<org>#CONTACTS / <createdAt>#<id>   every contact, creation order
 *   search index scope `contact`: words of name, e-mail and phone (also the phone's digits run together)
 * No contact value is part of a table or index key: contacts are listed in creation order.
 * The search index holds folded words, as `q` needs them.
 */
export interface Contact {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly email: string | null;
  readonly phone: string | null;
  /** What the person does for the sites (e.g. "Facility manager"). */
  readonly role: string | null;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const contactKeys = {
  contact: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#CONTACT#${id}`, SK: 'CONTACT' }),
  /** GSI1: the contacts of an organization in creation order. */
  byOrganization: (organizationId: string, createdAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#CONTACTS`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
};

export const CONTACT_ENTITY = 'Contact';
export const CONTACT_LABEL = 'contact';
const SEARCH_SCOPE = 'contact';

/** The words `q` finds a contact by: name, e-mail, phone as written and as its digits. */
export const contactSearchWords = (c: Pick<Contact, 'name' | 'email' | 'phone'>): string[] =>
  searchWords([c.name, c.email, c.phone, c.phone?.replace(/\D/g, '')]);

const contactToItem = (c: Contact): Record<string, unknown> => ({
  ...contactKeys.contact(c.organizationId, c.id),
  ...contactKeys.byOrganization(c.organizationId, c.createdAt, c.id),
  itemType: CONTACT_ENTITY,
  ...c,
});

export function contactFromItem(item: Record<string, unknown>): Contact {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    name: item.name as string,
    email: (item.email as string | null | undefined) ?? null,
    phone: (item.phone as string | null | undefined) ?? null,
    role: (item.role as string | null | undefined) ?? null,
    version: item.version as number,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
}

export async function getContact(db: Db, organizationId: string, id: string): Promise<Contact | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: contactKeys.contact(organizationId, id), ConsistentRead: true }));
  return out.Item ? contactFromItem(out.Item) : undefined;
}

/** The contacts of these ids that exist in the organization. */
export const getContacts = (db: Db, organizationId: string, ids: readonly string[]): Promise<Map<string, Contact>> =>
  getByIds(db, ids, (id) => contactKeys.contact(organizationId, id), contactFromItem);

export interface ContactChange {
  readonly before?: Contact;
  readonly after: Contact;
  readonly audit: AuditEntry;
}

/**
 * Commits a contact change in ONE transaction: the contact (create: not there yet; change:
 * still at the version read), its search index, the audit entry and the caller's items.
 */
export async function saveContact(db: Db, change: ContactChange, extra: readonly TxItem[]): Promise<void> {
  const { before, after } = change;
  const put: TxItem = {
    label: CONTACT_LABEL,
    op: {
      Put: {
        Item: contactToItem(after),
        ...(before
          ? { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': before.version } }
          : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
  };
  const search = searchIndexItems(after.organizationId, SEARCH_SCOPE, after.id, before ? contactSearchWords(before) : [], contactSearchWords(after));
  try {
    await commit(db, [put, ...search, auditItem(change.audit), ...extra]);
  } catch (error) {
    if (error instanceof TransactionCancelledError && error.failed(CONTACT_LABEL)) throw new EtagMismatchError();
    throw error;
  }
}

/** One page of an organization's contacts: in creation order, or with `q` (name, e-mail, phone). */
export const listContacts = (db: Db, organizationId: string, query: ListQuery): Promise<Page<Contact>> =>
  listPage(db, organizationId, query, {
    partition: () => contactKeys.byOrganization(organizationId).GSI1PK,
    searchScope: () => SEARCH_SCOPE,
    load: (ids) => getContacts(db, organizationId, ids),
    fromItem: contactFromItem,
  });
