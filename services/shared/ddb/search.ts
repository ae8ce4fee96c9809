import type { Db } from './client';
import { collect } from './read';
import type { TxItem } from './transaction';

/**
 * Word-prefix search without Scan. Each searchable entity writes one index item per normalized
 * word, in the same transaction as the entity:
 *   PK ORG#<org>#SEARCH#<scope>   SK <word>#<entityId>   (+ all words of the entity)
 * A search Queries `begins_with(SK, <first query word>)`, keeps entities whose words also
 * start with the other query words, and counts an entity only at its smallest matching word,
 * so each entity appears once across pages without any server-side state.
 */
export const MAX_WORDS = 24;
const MAX_WORD_LENGTH = 60;

/**
 * What a word is made of: letters and digits of any script ("Иван", "محمد", "王小明"), so that
 * names in every alphabet are found, not only their Latin parts.
 */
const NOT_WORD = /[^\p{L}\p{N}]+/u;
const HAS_NON_WORD = /[^\p{L}\p{N}]/u;
const HAS_WORD = /[\p{L}\p{N}]/u;

/** Lower case, accents removed: "Łódź Café" -> "lodz cafe". */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'l')
    .replace(/ß/g, 'ss')
    .toLowerCase();
}

/** The words an entity is found by: every run of letters and digits, plus whole values such as emails. */
export function searchWords(values: readonly (string | null | undefined)[]): string[] {
  const words = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    const folded = fold(value).trim();
    for (const word of folded.split(NOT_WORD)) if (word) words.add(word.slice(0, MAX_WORD_LENGTH));
    if (HAS_NON_WORD.test(folded) && !/\s/.test(folded)) words.add(folded.slice(0, MAX_WORD_LENGTH));
  }
  return [...words].sort().slice(0, MAX_WORDS);
}

/** Query words: one whole token when it looks like an email or id, else runs of letters and digits. */
export function queryWords(q: string): string[] {
  const folded = fold(q).trim();
  if (folded === '') return [];
  if (!/\s/.test(folded) && /[@._-]/.test(folded) && HAS_WORD.test(folded)) return [folded];
  return [...new Set(folded.split(NOT_WORD).filter(Boolean))];
}

/** How many letters and digits (of any script) `q` holds, once folded. */
export const wordCharacters = (q: string): number => [...fold(q).replace(new RegExp(NOT_WORD.source, 'gu'), '')].length;

const indexKey = (org: string, scope: string) => `ORG#${org}#SEARCH#${scope}`;

/** The label of every index item: labels end up in logs, so they never carry the word itself. */
export const SEARCH_LABEL = 'search';

/** Transaction items that move an entity's index from `before` words to `after` words. */
export function searchIndexItems(org: string, scope: string, entityId: string, before: readonly string[], after: readonly string[]): TxItem[] {
  const keep = new Set(after);
  const items: TxItem[] = after.map((word) => ({
    label: SEARCH_LABEL,
    op: { Put: { Item: { PK: indexKey(org, scope), SK: `${word}#${entityId}`, itemType: 'SearchIndex', entityId, words: [...after] } } },
  }));
  for (const word of before) {
    if (!keep.has(word)) items.push({ label: SEARCH_LABEL, op: { Delete: { Key: { PK: indexKey(org, scope), SK: `${word}#${entityId}` } } } });
  }
  return items;
}

export interface SearchPage {
  readonly entityIds: string[];
  /** Position after the last returned match, when more may follow. */
  readonly after?: string;
}

/** One page of entity ids matching every query word by prefix. */
export async function searchIds(db: Db, org: string, scope: string, q: string, limit: number, after?: string): Promise<SearchPage> {
  const words = queryWords(q);
  if (words.length === 0) return { entityIds: [] };
  // The longest word is the most selective prefix to read; every read stays inside it.
  const lead = [...words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))[0];
  const hi = `${lead}\uffff`;
  const matches: { id: string; sk: string }[] = [];
  // No key starts with another key plus more characters, so `<after> ` is the next position.
  let lo = after ? `${after} ` : lead;
  while (lo <= hi) {
    const { items, exhausted } = await collect(
      db,
      { KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': indexKey(org, scope), ':lo': lo, ':hi': hi } },
      limit + 1,
    );
    for (const item of items) {
      const sk = item.SK as string;
      const entityWords = (item.words as string[] | undefined) ?? [];
      const word = sk.slice(0, sk.lastIndexOf('#'));
      const firstLeadMatch = entityWords.filter((w) => w.startsWith(lead)).sort()[0];
      const allMatch = words.every((w) => entityWords.some((ew) => ew.startsWith(w)));
      if (allMatch && word === firstLeadMatch) matches.push({ id: item.entityId as string, sk });
      if (matches.length > limit) return { entityIds: matches.slice(0, limit).map((m) => m.id), after: matches[limit - 1].sk };
    }
    if (exhausted || items.length === 0) break;
    lo = `${items[items.length - 1].SK as string} `;
  }
  return { entityIds: matches.map((m) => m.id) };
}
