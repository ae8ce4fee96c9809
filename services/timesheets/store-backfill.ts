import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate, type Db } from '../shared/ddb/client';
import { collectAll } from '../shared/ddb/read';
import { dayAttribute, DAY_ITEM_TYPE, entryKeys, GUARD_ITEM_TYPE, indexedDaysOf, intervalValue, isLongEntry, timelineFromItem } from './model';
import { readGuard } from './store';

/**
 * The migration to day items: guards written before them (no `dayIndex`) make a create read
 * the timeline window (a Query) instead. `npm run backfill:overlap-days` lists the employees
 * of those guards once (a Scan: an operator's migration, never a request path) and, per
 * employee, puts the day items and long entries in step with the employee's timeline, then
 * sets `dayIndex` on the guard only if the guard's version did not move meanwhile. A write
 * that committed in between moves it: the employee is read and reconciled again (removals
 * too), so a stale interval never stays on a day item. `--all` reconciles every employee, the
 * marked ones too: the run to make after a rollout.
 */

export interface Unindexed {
  readonly organizationId: string;
  readonly employeeId: string;
}

/** The employees whose guard has no `dayIndex` yet (`all`: every guard); `onPage` is told the items scanned so far. */
export async function unindexedGuards(db: Db, onPage?: (scanned: number) => void, { all = false }: { readonly all?: boolean } = {}): Promise<Unindexed[]> {
  const found: Unindexed[] = [];
  let start: Record<string, unknown> | undefined;
  let scanned = 0;
  do {
    const out = await db.doc.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: `itemType = :guard${all ? '' : ' AND attribute_not_exists(dayIndex)'}`,
        ExpressionAttributeValues: { ':guard': GUARD_ITEM_TYPE },
        ProjectionExpression: 'PK',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const m = /^ORG#([^#]+)#EMP#([^#]+)$/.exec(String(item.PK));
      if (m) found.push({ organizationId: m[1], employeeId: m[2] });
    }
    scanned += out.ScannedCount ?? 0;
    onPage?.(scanned);
    start = out.LastEvaluatedKey;
  } while (start);
  return found;
}

export type BackfillOutcome = { readonly status: 'indexed'; readonly dayItems: number; readonly longEntries: number; readonly attempts: number } | { readonly status: 'already-indexed' | 'no-guard' };

/**
 * Puts one employee's day items in step with its timeline, then marks its guard; at most
 * `attempts` rounds. `reconcile`: also an employee already marked (after a rollout, a void by a
 * function of the previous version may have left an interval on a day item).
 */
export async function indexEmployeeDays(db: Db, { organizationId: org, employeeId }: Unindexed, { attempts = 5, reconcile = false }: { readonly attempts?: number; readonly reconcile?: boolean } = {}): Promise<BackfillOutcome> {
  const guardKey = entryKeys.guard(org, employeeId);
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const guard = await readGuard(db, org, employeeId);
    // Version 0: no guard item, so no entry of the employee either.
    if (guard.version === 0) return { status: 'no-guard' };
    if (guard.dayIndex && !reconcile) return { status: 'already-indexed' };
    const partition = (prefix: string) =>
      collectAll(db, { ConsistentRead: true, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': guardKey.PK, ':prefix': prefix } });
    const [timeline, days] = await Promise.all([partition('TE#'), partition('TE_UTCDAY#')]);

    const expected = new Map<string, Map<string, string>>(); // day -> attribute -> interval
    const longEntries: Record<string, string> = {};
    for (const t of timeline.map(timelineFromItem)) {
      if (isLongEntry(t)) longEntries[t.id] = intervalValue(t);
      for (const day of indexedDaysOf(t)) (expected.get(day) ?? expected.set(day, new Map()).get(day)!).set(dayAttribute(t.id), intervalValue(t));
    }
    const present = new Map(days.map((d) => [String(d.SK).replace(/^TE_UTCDAY#/, ''), d]));
    let written = 0;
    for (const day of new Set([...expected.keys(), ...present.keys()])) {
      const want = expected.get(day) ?? new Map<string, string>();
      const have = present.get(day) ?? {};
      const set = [...want].filter(([name, value]) => have[name] !== value);
      const remove = Object.keys(have).filter((name) => name.startsWith('e_') && !want.has(name));
      if (set.length === 0 && remove.length === 0) continue;
      // Each write moves the day's version on, as a revision's does (a create conditions on it).
      const names: Record<string, string> = { '#type': 'itemType', '#version': 'version' };
      const values: Record<string, unknown> = { ':type': DAY_ITEM_TYPE, ':zero': 0, ':one': 1 };
      const assignments = ['#type = :type', '#version = if_not_exists(#version, :zero) + :one'];
      set.forEach(([name, value], i) => {
        names[`#s${i}`] = name;
        values[`:s${i}`] = value;
        assignments.push(`#s${i} = :s${i}`);
      });
      remove.forEach((name, i) => (names[`#r${i}`] = name));
      const expression = `SET ${assignments.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.map((_, i) => `#r${i}`).join(', ')}` : ''}`;
      await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: entryKeys.day(org, employeeId, day), UpdateExpression: expression, ExpressionAttributeNames: names, ExpressionAttributeValues: values }));
      written += 1;
    }
    const marked = await conditionalUpdate(db, {
      Key: guardKey,
      UpdateExpression: 'SET dayIndex = :true, longEntries = :long',
      ConditionExpression: 'version = :read',
      ExpressionAttributeValues: { ':true': true, ':long': longEntries, ':read': guard.version },
    });
    if (marked) return { status: 'indexed', dayItems: written, longEntries: Object.keys(longEntries).length, attempts: attempt };
  }
  throw new Error(`The guard of employee ${employeeId} kept moving during ${attempts} rounds; run the backfill again.`);
}
