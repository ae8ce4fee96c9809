import { parseArgs } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { operatorDb } from '../services/cli/target';
import type { Db } from '../services/shared/ddb/client';
import { employeeKeys } from '../services/employees/store';
import { dayAttribute, entryKeys, indexedDaysOf, intervalValue, isLongEntry, type TimeEntry } from '../services/timesheets/model';

/**
 * `npm run check:consistency`: verifies a whole table against the invariants that every
 * committed transaction keeps, so that a fault drill (or an operator after an incident) can
 * prove that nothing was half-written. Exits 0 when the table holds, 1 on a violation, 2 when
 * it could not read the table or the command line has an unknown option or argument.
 *
 * Target: TABLE_NAME (+ DYNAMODB_ENDPOINT for DynamoDB Local), else the running `npm start`
 * (.local/runtime.json), as the operator commands do. `--json` prints the report as JSON.
 *
 * A Scan is right here: the checker reads everything once; no request path ever scans.
 */

type Item = Record<string, any>;

export interface Violation {
  /** Stable rule id, e.g. `entry.audit-per-revision`. */
  readonly rule: string;
  /** PK/SK of the item the violation is about. */
  readonly key: string;
  readonly detail: string;
}

export interface ConsistencyReport {
  readonly items: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly violations: readonly Violation[];
  /** Facts that are not violations (e.g. idempotency locks left by a crash; they expire). */
  readonly notes: readonly string[];
}

/** The invariants, one line each; docs/reliability.md repeats them. */
export const RULES = {
  'entry.audit-per-revision': 'every time entry has exactly one audit entry per revision 1..revision, and none for a later revision',
  'entry.audit-matches-current': "the audit entry of the current revision shows the entry's stored start, end, break and state",
  'audit.orphan': 'every time-entry audit entry belongs to an existing entry (no audit without its change)',
  'entry.timeline': 'every time entry has exactly one timeline item, at its current start, with its end and state',
  'timeline.orphan': 'every timeline item belongs to an existing entry at that position (no stale or half-moved items)',
  'guard.open-entries': "the employee's overlap guard lists exactly the employee's OPEN entries",
  'guard.max-duration': "the employee's guard bounds every closed interval of the employee",
  'entry.days': "where the employee's guard has dayIndex, a CLOSED entry is listed with its interval on the day item of each UTC day it touches (one touching more days than day items take: in the guard's longEntries)",
  'day.orphan': "every interval a day item (or the guard's longEntries) lists is a CLOSED entry of that employee with that interval, on a day it touches",
  'stats.max-duration': "the organization's TE_STATS bounds every closed interval of the organization",
  'evidence.orphan': 'restricted evidence belongs to an existing entry revision',
  'idempotency.completed-result': 'a COMPLETED idempotency record replays a change that exists (entry at that revision or later, employee)',
  'idempotency.shape': 'an idempotency record is IN_PROGRESS or COMPLETED, and a COMPLETED one carries its response',
  'employee.guard': 'a uniqueness guard names an existing employee of its organization',
  'employee.guarded': "an employee whose SCIM resource exists holds the guards of its userName and externalId",
  'employee.email-lookup': 'an e-mail lookup names an existing employee that has that address',
  'work-event.entry': 'a work event that projected into an entry names an existing entry',
  'customer.access': 'no ACTIVE, unexpired customer access grant belongs to a missing or archived customer, or to a contact its customer no longer links',
} as const;

export type Rule = keyof typeof RULES;

const keyOf = (i: Item) => `${i.PK} | ${i.SK}`;
const durationOf = (e: Item): number => (e.endedAt ? Date.parse(e.endedAt) - Date.parse(e.startedAt) : 0);
const lower = (s: unknown) => String(s ?? '').toLowerCase();

/** Checks the items of a whole table (pure: tests feed it arrays). */
export function checkItems(items: readonly Item[], now = Date.now()): ConsistencyReport {
  const violations: Violation[] = [];
  const notes: string[] = [];
  const flag = (rule: Rule, item: Item | string, detail: string) => violations.push({ rule, key: typeof item === 'string' ? item : keyOf(item), detail });

  const counts: Record<string, number> = {};
  const byType = new Map<string, Item[]>();
  for (const item of items) {
    const type = String(item.itemType ?? 'untyped');
    counts[type] = (counts[type] ?? 0) + 1;
    (byType.get(type) ?? byType.set(type, []).get(type)!).push(item);
  }
  const of = (type: string) => byType.get(type) ?? [];

  // --- time entries and their audit trail --------------------------------------------------
  const entries = new Map<string, Item>(); // `${org}#${id}`
  for (const e of of('TimeEntry')) entries.set(`${e.organizationId}#${e.id}`, e);

  const auditsOf = new Map<string, Item[]>();
  for (const a of of('AuditEntry')) {
    if (a.entity?.type !== 'time_entry') continue;
    const k = `${a.organizationId}#${a.entity.id}`;
    (auditsOf.get(k) ?? auditsOf.set(k, []).get(k)!).push(a);
    if (!entries.has(k)) flag('audit.orphan', a, `audit ${a.action} (request ${a.requestId}) names time entry ${a.entity.id}, which does not exist`);
  }
  for (const [k, e] of entries) {
    const audits = auditsOf.get(k) ?? [];
    const byRevision = new Map<number, Item[]>();
    for (const a of audits) {
      const r = Number(a.after?.revision);
      (byRevision.get(r) ?? byRevision.set(r, []).get(r)!).push(a);
    }
    for (let r = 1; r <= e.revision; r += 1) {
      const n = byRevision.get(r)?.length ?? 0;
      if (n !== 1) flag('entry.audit-per-revision', e, `revision ${r} of ${e.revision} has ${n} audit entries`);
    }
    for (const r of byRevision.keys()) {
      if (!(r >= 1 && r <= e.revision)) flag('entry.audit-per-revision', e, `an audit entry names revision ${r}, but the entry is at revision ${e.revision}`);
    }
    const current = byRevision.get(e.revision)?.[0]?.after;
    if (current) {
      const same = current.startedAt === e.startedAt && (current.endedAt ?? null) === (e.endedAt ?? null) && current.breakMinutes === e.breakMinutes && current.state === e.state;
      if (!same) flag('entry.audit-matches-current', e, `audit of revision ${e.revision} says ${JSON.stringify(current)}, the entry is ${e.startedAt}..${e.endedAt} break ${e.breakMinutes} ${e.state}`);
    }
  }

  // --- timeline items -----------------------------------------------------------------------
  const timelineAt = new Map<string, Item[]>(); // `${org}#${id}`
  for (const t of of('TimelineEntry')) {
    const m = /^ORG#([^#]+)#EMP#([^#]+)$/.exec(String(t.PK));
    const org = m?.[1] ?? '?';
    const k = `${org}#${t.id}`;
    (timelineAt.get(k) ?? timelineAt.set(k, []).get(k)!).push(t);
    const e = entries.get(k);
    if (!e) flag('timeline.orphan', t, `timeline item of entry ${t.id}, which does not exist`);
    else if (t.SK !== entryKeys.timeline(e as any).SK || t.PK !== entryKeys.timeline(e as any).PK) flag('timeline.orphan', t, `stale position: the entry starts at ${e.startedAt}`);
  }
  for (const [k, e] of entries) {
    const ts = timelineAt.get(k) ?? [];
    const expected = entryKeys.timeline(e as any);
    const here = ts.filter((t) => t.PK === expected.PK && t.SK === expected.SK);
    if (here.length !== 1) flag('entry.timeline', e, `${here.length} timeline items at ${expected.SK}`);
    else if ((here[0].endedAt ?? null) !== (e.endedAt ?? null) || here[0].state !== e.state) {
      flag('entry.timeline', e, `timeline says ${here[0].endedAt} ${here[0].state}, the entry ${e.endedAt} ${e.state}`);
    }
  }

  // --- overlap guards and organization stats ------------------------------------------------
  const entriesOfEmployee = new Map<string, Item[]>();
  const maxOfOrg = new Map<string, number>();
  for (const e of entries.values()) {
    const k = `${e.organizationId}#${e.employeeId}`;
    (entriesOfEmployee.get(k) ?? entriesOfEmployee.set(k, []).get(k)!).push(e);
    maxOfOrg.set(e.organizationId, Math.max(maxOfOrg.get(e.organizationId) ?? 0, durationOf(e)));
  }
  const guards = new Map<string, Item>();
  for (const g of of('OverlapGuard')) {
    const m = /^ORG#([^#]+)#EMP#([^#]+)$/.exec(String(g.PK));
    if (m) guards.set(`${m[1]}#${m[2]}`, g);
  }
  for (const k of new Set([...entriesOfEmployee.keys(), ...guards.keys()])) {
    const list = entriesOfEmployee.get(k) ?? [];
    const g = guards.get(k);
    const open = Object.fromEntries(list.filter((e) => e.state === 'OPEN').map((e) => [e.id, e.startedAt]));
    const listed = (g?.openEntries ?? {}) as Record<string, string>;
    const same = Object.keys(open).length === Object.keys(listed).length && Object.entries(open).every(([id, at]) => listed[id] === at);
    if (!same) flag('guard.open-entries', g ?? `guard of ${k}`, `guard lists ${JSON.stringify(listed)}, OPEN entries are ${JSON.stringify(open)}`);
    const longest = Math.max(0, ...list.map(durationOf));
    if (list.length > 0 && (g?.maxClosedDurationMs ?? 0) < longest) flag('guard.max-duration', g ?? `guard of ${k}`, `guard bound ${g?.maxClosedDurationMs ?? 0} ms < longest interval ${longest} ms`);
  }
  const days = new Map<string, Item>(); // keyOf
  for (const d of of('OverlapDay')) {
    days.set(keyOf(d), d);
    const m = /^ORG#([^#]+)#EMP#([^#]+)$/.exec(String(d.PK));
    const day = String(d.SK).replace(/^TE_UTCDAY#/, '');
    for (const [name, value] of Object.entries(d)) {
      if (!name.startsWith('e_')) continue;
      const e = entries.get(`${m?.[1]}#${name.slice(2)}`);
      if (!e || e.employeeId !== m?.[2] || value !== intervalValue(e as TimeEntry) || !indexedDaysOf(e as TimeEntry).includes(day)) flag('day.orphan', d, `lists ${name.slice(2)} as ${value}; the entry is ${e ? `${e.state} ${intervalValue(e as TimeEntry)}` : 'missing'}`);
    }
  }
  for (const [k, g] of guards) {
    for (const [id, value] of Object.entries((g.longEntries ?? {}) as Record<string, string>)) {
      const e = entries.get(`${k.split('#')[0]}#${id}`);
      if (!e || value !== intervalValue(e as TimeEntry) || !isLongEntry(e as TimeEntry)) flag('day.orphan', g, `longEntries lists ${id} as ${value}; the entry is ${e ? `${e.state} ${intervalValue(e as TimeEntry)}` : 'missing'}`);
    }
    if (g.dayIndex !== true) continue;
    for (const e of entriesOfEmployee.get(k) ?? []) {
      if (isLongEntry(e as TimeEntry) && g.longEntries?.[e.id] !== intervalValue(e as TimeEntry)) flag('entry.days', e, `a long CLOSED entry the guard's longEntries does not list as ${intervalValue(e as TimeEntry)}`);
      for (const day of indexedDaysOf(e as TimeEntry)) {
        const d = days.get(keyOf(entryKeys.day(e.organizationId, e.employeeId, day)));
        if (d?.[dayAttribute(e.id)] !== intervalValue(e as TimeEntry)) flag('entry.days', e, `day item ${day} does not list it as ${intervalValue(e as TimeEntry)}`);
      }
    }
  }
  const stats = new Map(of('TimeEntryStats').map((s) => [String(s.PK).replace(/^ORG#/, ''), s]));
  for (const [org, longest] of maxOfOrg) {
    const bound = (stats.get(org)?.maxClosedDurationMs as number | undefined) ?? 0;
    if (bound < longest) flag('stats.max-duration', `ORG#${org} | TE_STATS`, `bound ${bound} ms < longest interval ${longest} ms`);
  }

  // --- restricted evidence ------------------------------------------------------------------
  for (const ev of of('RestrictedEvidence')) {
    // Work events keep their restricted scan data under their own PK (SK RESTRICTED).
    const m = /^ORG#([^#]+)#TE#([^#]+)$/.exec(String(ev.PK));
    if (!m) continue;
    const e = entries.get(`${m[1]}#${m[2]}`);
    const revision = Number(/^EVIDENCE#r(\d+)$/.exec(String(ev.SK))?.[1]);
    if (!e || !(revision <= e.revision)) flag('evidence.orphan', ev, e ? `revision ${revision} > entry revision ${e.revision}` : 'no such entry');
  }

  // --- idempotency records ------------------------------------------------------------------
  const employees = new Map<string, Item>();
  for (const emp of of('Employee')) employees.set(`${emp.organizationId}#${emp.id}`, emp);
  let locks = 0;
  let expiredLocks = 0;
  for (const r of of('IdempotencyRecord')) {
    if (r.status === 'INPROGRESS') {
      locks += 1;
      if (Number(r.inProgressExpiresAt) < now) expiredLocks += 1;
      continue;
    }
    if (r.status !== 'COMPLETED' || !r.response) {
      flag('idempotency.shape', r, `status ${r.status}, ${r.response ? 'with' : 'without'} a response`);
      continue;
    }
    const body = (typeof r.response.bodyText === 'string' ? JSON.parse(r.response.bodyText) : r.response.body) as Item | undefined;
    const status = Number(r.response.statusCode);
    if (!body || typeof body.id !== 'string' || status >= 300) continue;
    const etag = String(r.response.headers?.ETag ?? '');
    const te = /^"time-entry:([0-9a-f-]+):r(\d+)"$/.exec(etag);
    if (te) {
      const orgs = [...new Set([...entries.values()].filter((e) => e.id === te[1]).map((e) => e.organizationId))];
      const e = orgs.length === 1 ? entries.get(`${orgs[0]}#${te[1]}`) : undefined;
      if (!e || e.revision < Number(te[2])) flag('idempotency.completed-result', r, `replays ${etag}, but the entry is ${e ? `at revision ${e.revision}` : 'missing'}`);
    } else if (Array.isArray(body.schemas) && body.schemas.some((s: unknown) => String(s).endsWith(':User'))) {
      if (![...employees.values()].some((emp) => emp.id === body.id)) flag('idempotency.completed-result', r, `replays SCIM user ${body.id}, which does not exist`);
    }
  }
  if (locks > 0) notes.push(`${locks} idempotency lock(s) IN_PROGRESS (${expiredLocks} past their expiry): requests that failed before their commit; a retry takes the lock once it expires.`);

  // --- employees: uniqueness guards and e-mail lookups ---------------------------------------
  for (const g of of('EmployeeUniqueGuard')) {
    const emp = employees.get(`${g.organizationId}#${g.employeeId}`);
    if (!emp) flag('employee.guard', g, `${g.attribute} guard names employee ${g.employeeId}, which does not exist`);
  }
  const guardHolder = new Map<string, string>(); // guard PK -> employeeId
  for (const g of of('EmployeeUniqueGuard')) guardHolder.set(String(g.PK), String(g.employeeId));
  const emailHolders = new Map<string, Set<string>>();
  for (const l of of('EmployeeEmailLookup')) {
    const id = String(l.employeeId ?? String(l.SK).replace(/^EMP#/, ''));
    (emailHolders.get(String(l.PK)) ?? emailHolders.set(String(l.PK), new Set()).get(String(l.PK))!).add(id);
  }

  // --- customers: access grants (archive and unlink refuse while one lets a contact in; grants
  // activated before that rule existed are what an operator looks for here) ------------------
  const customers = new Map<string, Item>(of('Customer').map((c) => [`${c.organizationId}#${c.id}`, c]));
  for (const g of of('CustomerAccessGrant')) {
    if (g.state !== 'ACTIVE' || !(Date.parse(g.expiresAt) > now)) continue;
    const c = customers.get(`${g.organizationId}#${g.customerId}`);
    if (!c) flag('customer.access', g, `active grant ${g.id} of customer ${g.customerId}, which does not exist`);
    else if (c.archived) flag('customer.access', g, `active grant ${g.id} of customer ${c.id}, which is archived`);
    else if (!(c.contactIds ?? []).includes(g.contactId)) flag('customer.access', g, `active grant ${g.id} of contact ${g.contactId}, which customer ${c.id} no longer links`);
  }
  return finish();

  function finish(): ConsistencyReport {
    checkEmployees();
    for (const ev of of('WorkEvent')) {
      if (ev.timeEntryId && !entries.has(`${ev.organizationId}#${ev.timeEntryId}`)) flag('work-event.entry', ev, `projected into entry ${ev.timeEntryId}, which does not exist`);
    }
    return { items: items.length, counts, violations, notes };
  }

  function checkEmployees(): void {
    // Guard and lookup keys hold digests: the keys of each employee's own values are rebuilt
    // with the employee store's key builders.
    const lookupsSeen = new Set<string>();
    for (const emp of employees.values()) {
      const values: [('userName' | 'externalId'), string | undefined][] = [
        ['userName', emp.userName],
        ['externalId', emp.externalId],
      ];
      for (const [attribute, value] of values) {
        if (!value) continue;
        const pk = employeeKeys.uniqueGuard(emp.organizationId, attribute, value).PK;
        const holder = guardHolder.get(pk);
        if (!emp.scimDeleted && holder !== emp.id) flag('employee.guarded', emp, `${attribute} guard is held by ${holder ?? 'nobody'}`);
      }
      for (const email of new Set((emp.emails ?? []).map((e: Item) => lower(e.value)))) {
        const pk = employeeKeys.emailPartition(emp.organizationId, email as string);
        lookupsSeen.add(`${pk}#${emp.id}`);
        if (!emailHolders.get(pk)?.has(emp.id)) flag('employee.email-lookup', emp, `no e-mail lookup for one of its addresses`);
      }
    }
    for (const l of of('EmployeeEmailLookup')) {
      const id = String(l.employeeId ?? String(l.SK).replace(/^EMP#/, ''));
      if (!lookupsSeen.has(`${l.PK}#${id}`)) flag('employee.email-lookup', l, `names employee ${id}, which does not exist or no longer has that address`);
    }
  }
}

/** Every item of the table, with a consistent Scan. */
export async function scanAll(db: Db): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.doc.send(new ScanCommand({ TableName: db.tableName, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export async function checkTable(db: Db): Promise<ConsistencyReport> {
  return checkItems(await scanAll(db));
}

export function formatReport(report: ConsistencyReport, target: string): string {
  const lines = [`Consistency of ${target}: ${report.items} items (${Object.entries(report.counts).map(([t, n]) => `${t} ${n}`).join(', ')})`];
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (report.violations.length === 0) {
    lines.push(`OK: ${Object.keys(RULES).length} rules hold.`);
    return lines.join('\n');
  }
  const byRule = new Map<string, Violation[]>();
  for (const v of report.violations) (byRule.get(v.rule) ?? byRule.set(v.rule, []).get(v.rule)!).push(v);
  lines.push(`VIOLATED: ${report.violations.length} violation(s) of ${byRule.size} rule(s)`);
  for (const [rule, list] of byRule) {
    lines.push(`- ${rule}: ${RULES[rule as Rule]}`);
    for (const v of list.slice(0, 20)) lines.push(`    ${v.key}: ${v.detail}`);
    if (list.length > 20) lines.push(`    ... and ${list.length - 20} more`);
  }
  return lines.join('\n');
}

const USAGE = `Usage: npm run check:consistency [-- --json]
  Verifies every invariant of a whole table (TABLE_NAME, + DYNAMODB_ENDPOINT for DynamoDB Local;
  else the running npm start). --json prints the report as JSON. Exit 0: the table holds;
  1: a violation; 2: the table could not be read, or the command line is wrong.`;

async function main(): Promise<void> {
  let json: boolean;
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    json = values.json ?? false;
  } catch (error) {
    // Unknown options and stray arguments: a misspelled flag must not pass for a clean run.
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  let target;
  try {
    target = operatorDb();
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exit(2);
  }
  try {
    const report = await checkTable(target.db);
    console.log(json ? JSON.stringify({ target: target.description, ...report }, null, 2) : formatReport(report, target.description));
    process.exit(report.violations.length === 0 ? 0 : 1);
  } catch (error) {
    console.error(`error: could not read ${target.description}: ${(error as Error).name}`);
    process.exit(2);
  }
}

if (/check-consistency\.[cm]?[tj]s$/.test(process.argv[1] ?? '')) void main();
