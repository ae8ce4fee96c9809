import type { Db } from '../../services/shared/ddb/client';
import { fold, queryWords, searchIds, searchIndexItems, searchWords } from '../../services/shared/ddb/search';
import { commit } from '../../services/shared/ddb/transaction';
import { createTestTable } from '../support/table';

let db: Db;
const ORG = '88888888-8888-4888-8888-888888888888';
const OTHER = '99999999-9999-4999-8999-999999999999';
const people: Record<string, string[]> = {
  p1: ['Anna Andersen', 'anna.andersen@example.com', 'EXT-001'],
  p2: ['Andreas Åkesson', 'andreas@example.com'],
  p3: ['Bruno Anand', 'bruno@example.com'],
  p4: ['Zoë Łukasz', 'zoe@example.org'],
  p5: ['Иван Петров', 'ivan@example.org'],
  p6: ['محمد عبد الله'],
  p7: ['王小明'],
};
const id = (key: string) => `00000000-0000-4000-8000-00000000000${key.slice(1)}`;

beforeAll(async () => {
  db = await createTestTable();
  for (const [key, values] of Object.entries(people)) await commit(db, searchIndexItems(ORG, 'employee', id(key), [], searchWords(values)));
  await commit(db, searchIndexItems(OTHER, 'employee', id('p9'), [], searchWords(['Anna Other'])));
});

const search = async (q: string, limit = 10) => (await searchIds(db, ORG, 'employee', q, limit)).entityIds.sort();

describe('word normalization', () => {
  it('folds case and accents and keeps whole emails', () => {
    expect(fold('Zoë Łukasz ÅKESSON Straße')).toBe('zoe lukasz akesson strasse');
    expect(searchWords(['Anna Andersen', 'anna.andersen@example.com'])).toEqual(['andersen', 'anna', 'anna.andersen@example.com', 'com', 'example']);
    expect(queryWords('  Anna  AND ')).toEqual(['anna', 'and']);
    expect(queryWords('anna.andersen@exa')).toEqual(['anna.andersen@exa']);
  });
});

describe('searchIds', () => {
  it('finds entities by any word prefix, once each, within the organization', async () => {
    expect(await search('an')).toEqual([id('p1'), id('p2'), id('p3')]);
    expect(await search('AKES')).toEqual([id('p2')]);
    expect(await search('zoe')).toEqual([id('p4')]);
    expect(await search('ext-001')).toEqual([id('p1')]);
  });

  it('requires every query word', async () => {
    expect(await search('anna and')).toEqual([id('p1')]);
    expect(await search('bruno anna')).toEqual([]);
  });

  it('finds names in any script, by word prefix, case-insensitively', async () => {
    expect(await search('иван')).toEqual([id('p5')]);
    expect(await search('ПЕТ')).toEqual([id('p5')]);
    expect(await search('محمد')).toEqual([id('p6')]);
    expect(await search('عبد')).toEqual([id('p6')]);
    expect(await search('王小')).toEqual([id('p7')]);
    expect(queryWords('Иван, Петров!')).toEqual(['иван', 'петров']);
  });

  it('matches emails as one token', async () => {
    expect(await search('andreas@ex')).toEqual([id('p2')]);
  });

  it('pages without repeating an entity that matches on several words', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await searchIds(db, ORG, 'employee', 'an', 1, after);
      seen.push(...page.entityIds);
      after = page.after;
    } while (after);
    expect(seen.sort()).toEqual([id('p1'), id('p2'), id('p3')]);
  });

  it('moves the index when the words change', async () => {
    await commit(db, searchIndexItems(ORG, 'employee', id('p3'), searchWords(people.p3), searchWords(['Bruno Okafor', 'bruno@example.com'])));
    expect(await search('anand')).toEqual([]);
    expect(await search('okaf')).toEqual([id('p3')]);
  });
});
