import { createHash, createHmac, randomUUID } from 'node:crypto';
import { ingestEvidence } from '../evidence-ingest/handler';
import { sealRestricted } from '../shared/crypto/restricted';
import { issueApiKey } from '../api-keys/issue';
import { getApiKey } from '../api-keys/store';
import { putEmployee, getEmployee, employeeSearchItems, type Employee } from '../employees/public';
import { getLocation, indexLocation, putLocation, type Location } from '../locations/public';
import { getOrganization, putOrganization, setTimesheetCorrections, type Organization } from '../organization/public';
import { SCOPES } from '../routes';
import { hashSecret, KEY_PREFIX, type IssuedApiKey } from '../shared/auth/api-key';
import type { ApiEnvironment } from '../shared/config';
import type { Db } from '../shared/ddb/client';
import { commit } from '../shared/ddb/transaction';
import { AREAS } from '../registry';
import type { DemoOrganizations, DemoSeed, DemoSeedContext } from '../shared/seed';

/**
 * The demo seed: two organizations with employees, locations, keys (and, through the
 * evidence-ingest module, work events and scanned entries), plus a third organization whose
 * timesheet gate was turned off after a key with timesheets:write was issued. Idempotent:
 * fixed ids, keys derived from the local seed secret, existing records left alone.
 */
export interface DemoKeys {
  readonly admin: string;
  readonly timesheetsNoWorkEvents: string;
  readonly readOnly: string;
  readonly scim: string;
  readonly otherOrganization: string;
  readonly gated: string;
  readonly live: string;
}

export interface DemoData extends DemoOrganizations {
  readonly gatedOrganizationId: string;
  readonly gatedEmployees: readonly string[];
  readonly gatedLocations: readonly string[];
  readonly keys: DemoKeys;
}

export const DEMO_IDS = {
  organization: '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f',
  otherOrganization: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d',
  gatedOrganization: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
  employees: ['1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501', '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f502', '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f503'],
  otherEmployees: ['2c3d4e5f-6071-4829-9ab1-c2d3e4f50601'],
  gatedEmployees: ['3d4e5f60-7182-493a-8bc2-d3e4f5060701'],
  locations: ['4e5f6071-8293-4a4b-9cd3-e4f506070801', '4e5f6071-8293-4a4b-9cd3-e4f506070802'],
  otherLocations: ['5f607182-93a4-4b5c-8de4-f50607080901'],
  gatedLocations: ['60718293-a4b5-4c6d-9ef5-060708090a01'],
  /** Work events: re-ingesting the same ids changes nothing. */
  events: [
    'e0000001-0000-4000-8000-000000000001',
    'e0000001-0000-4000-8000-000000000002',
    'e0000001-0000-4000-8000-000000000003',
    'e0000001-0000-4000-8000-000000000004',
    'e0000001-0000-4000-8000-000000000005',
    'e0000001-0000-4000-8000-000000000006',
    'e0000001-0000-4000-8000-000000000007',
    'e0000001-0000-4000-8000-000000000008',
  ],
} as const;

const READ_SCOPES = SCOPES.filter((s) => s.endsWith(':read'));

interface PersonSeed {
  readonly given: string;
  readonly family: string;
}

const PEOPLE: readonly PersonSeed[] = [
  { given: 'Ada', family: 'Lindqvist' },
  { given: 'Bruno', family: 'Okafor' },
  { given: 'Chiara', family: 'Rossi' },
];

export async function seedDemo(db: Db, seedSecret: string, now = new Date()): Promise<DemoData> {
  const at = now.toISOString();
  await ensureOrganization(db, DEMO_IDS.organization, 'Acme Facility Services', at);
  await ensureOrganization(db, DEMO_IDS.otherOrganization, 'Globex Cleaning', at);
  await ensureOrganization(db, DEMO_IDS.gatedOrganization, 'Initech Security', at);

  await ensureEmployees(db, DEMO_IDS.organization, DEMO_IDS.employees, PEOPLE, 'acme.example', at);
  await ensureEmployees(db, DEMO_IDS.otherOrganization, DEMO_IDS.otherEmployees, [{ given: 'Dmitri', family: 'Volkov' }], 'globex.example', at);
  await ensureEmployees(db, DEMO_IDS.gatedOrganization, DEMO_IDS.gatedEmployees, [{ given: 'Eun-ji', family: 'Park' }], 'initech.example', at);

  await ensureLocations(db, DEMO_IDS.organization, DEMO_IDS.locations, ['Harbour Office Tower', 'Central Station Depot'], at);
  await ensureLocations(db, DEMO_IDS.otherOrganization, DEMO_IDS.otherLocations, ['Globex Headquarters'], at);
  await ensureLocations(db, DEMO_IDS.gatedOrganization, DEMO_IDS.gatedLocations, ['Initech Campus'], at);

  const key = (name: string, organizationId: string, scopes: readonly string[], environment: ApiEnvironment = 'TEST') =>
    ensureKey(db, seedSecret, { name, organizationId, scopes, environment, now: at });
  const keys: DemoKeys = {
    admin: await key('admin', DEMO_IDS.organization, SCOPES),
    timesheetsNoWorkEvents: await key('timesheetsNoWorkEvents', DEMO_IDS.organization, ['timesheets:read', 'timesheets:write']),
    readOnly: await key('readOnly', DEMO_IDS.organization, READ_SCOPES),
    scim: await key('scim', DEMO_IDS.organization, ['scim:read', 'scim:write']),
    otherOrganization: await key('otherOrganization', DEMO_IDS.otherOrganization, SCOPES),
    gated: await gatedKey(db, seedSecret, at),
    live: await key('live', DEMO_IDS.organization, SCOPES, 'LIVE'),
  };
  await seedScans(db, now);
  const organizations: DemoOrganizations = {
    organizationId: DEMO_IDS.organization,
    otherOrganizationId: DEMO_IDS.otherOrganization,
    employees: DEMO_IDS.employees,
    otherOrganizationEmployees: DEMO_IDS.otherEmployees,
    locations: DEMO_IDS.locations,
    otherOrganizationLocations: DEMO_IDS.otherLocations,
  };
  await seedAreas({ db, now, ...organizations });

  return {
    ...organizations,
    gatedOrganizationId: DEMO_IDS.gatedOrganization,
    gatedEmployees: DEMO_IDS.gatedEmployees,
    gatedLocations: DEMO_IDS.gatedLocations,
    keys,
  };
}

/**
 * Every area that declares `demoSeed: true` seeds its own demo records from
 * `services/<area>/seed.ts`, in registry order (a seed may use the records of areas listed
 * before it). Loaded here only: no Lambda bundle contains a seed.
 */
async function seedAreas(context: DemoSeedContext): Promise<void> {
  for (const area of AREAS.filter((a) => a.demoSeed)) {
    const module = (await import(`../${area.name}/seed`)) as { seed?: DemoSeed };
    if (typeof module.seed !== 'function') throw new Error(`services/${area.name}/seed.ts exports no seed.`);
    await module.seed(context);
  }
}

/**
 * Scans through the internal evidence channel: a closed shift yesterday, an open one today,
 * a check-in that needs review (never projected), and a shift in each other organization.
 */
async function seedScans(db: Db, now: Date): Promise<void> {
  const deps = { db, now: () => new Date(), newId: randomUUID, seal: sealRestricted };
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const at = (ms: number) => new Date(ms).toISOString();
  const yesterday = (h: number, m = 0) => at(day - 86_400_000 + (h * 60 + m) * 60_000);
  const ids = DEMO_IDS.events;
  const scan = (i: number, organizationId: string, employeeId: string, locationId: string, type: 'CHECK_IN' | 'CHECK_OUT', clientTimestamp: string, verificationState: 'VERIFIED' | 'REVIEW_REQUIRED' = 'VERIFIED') =>
    ingestEvidence(deps, organizationId, {
      id: ids[i],
      employeeId,
      locationId,
      type,
      clientTimestamp,
      offline: false,
      verificationState,
      restricted: { qrPublicId: `qr-${locationId.slice(0, 8)}`, deviceId: `device-${employeeId.slice(0, 8)}`, latitude: 53.5511, longitude: 9.9937, accuracyMeters: 12 },
    });
  const [e0, e1, e2] = DEMO_IDS.employees;
  const [l0, l1] = DEMO_IDS.locations;
  await scan(0, DEMO_IDS.organization, e0, l0, 'CHECK_IN', yesterday(7));
  await scan(1, DEMO_IDS.organization, e0, l0, 'CHECK_OUT', yesterday(15, 30));
  await scan(2, DEMO_IDS.organization, e1, l1, 'CHECK_IN', at(now.getTime() - 2 * 3_600_000));
  await scan(3, DEMO_IDS.organization, e2, l1, 'CHECK_IN', yesterday(8), 'REVIEW_REQUIRED');
  await scan(4, DEMO_IDS.otherOrganization, DEMO_IDS.otherEmployees[0], DEMO_IDS.otherLocations[0], 'CHECK_IN', yesterday(6));
  await scan(5, DEMO_IDS.otherOrganization, DEMO_IDS.otherEmployees[0], DEMO_IDS.otherLocations[0], 'CHECK_OUT', yesterday(14));
  await scan(6, DEMO_IDS.gatedOrganization, DEMO_IDS.gatedEmployees[0], DEMO_IDS.gatedLocations[0], 'CHECK_IN', yesterday(9));
  await scan(7, DEMO_IDS.gatedOrganization, DEMO_IDS.gatedEmployees[0], DEMO_IDS.gatedLocations[0], 'CHECK_OUT', yesterday(17));
}

/** Created once with the capability on; later starts leave what operators changed alone. */
async function ensureOrganization(db: Db, id: string, name: string, at: string): Promise<void> {
  if (await getOrganization(db, id)) return;
  const org: Organization = {
    id,
    name,
    entitlements: { timesheetCorrections: true },
    rolloutGates: { timesheetCorrections: true },
    createdAt: at,
    updatedAt: at,
  };
  await putOrganization(db, org);
}

/**
 * The gated organization's key was issued with timesheets:write while its rollout gate was
 * on; the gate was turned off afterwards (decisions.md, demo key `gated`).
 */
async function gatedKey(db: Db, seedSecret: string, at: string): Promise<string> {
  const spec = { name: 'gated', organizationId: DEMO_IDS.gatedOrganization, scopes: ['timesheets:read', 'timesheets:write'], environment: 'TEST' as const, now: at };
  const derived = deriveDemoKey(seedSecret, spec.name, spec.environment);
  if (!(await getApiKey(db, derived.keyId))) {
    await setTimesheetCorrections(db, DEMO_IDS.gatedOrganization, { entitlement: true, rolloutGate: true }, at);
    await ensureKey(db, seedSecret, spec);
    await setTimesheetCorrections(db, DEMO_IDS.gatedOrganization, { rolloutGate: false }, at);
  }
  return derived.token;
}

async function ensureEmployees(db: Db, organizationId: string, ids: readonly string[], people: readonly PersonSeed[], domain: string, at: string) {
  for (const [i, id] of ids.entries()) {
    const existing = await getEmployee(db, organizationId, id);
    if (existing) {
      // Data seeded before the search index existed becomes findable by `q` too (puts only: idempotent).
      await indexEmployee(db, existing);
      continue;
    }
    const person = people[i];
    const email = `${person.given}.${person.family}@${domain}`.toLowerCase();
    const employee: Employee = {
      id,
      organizationId,
      userName: email,
      displayName: `${person.given} ${person.family}`,
      givenName: person.given,
      familyName: person.family,
      emails: [{ value: email, type: 'work', primary: true }],
      externalId: `seed-${id}`,
      active: true,
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    await putEmployee(db, employee);
    await indexEmployee(db, employee);
  }
}

async function indexEmployee(db: Db, employee: Employee): Promise<void> {
  const items = employeeSearchItems(undefined, employee);
  if (items.length > 0) await commit(db, items);
}

async function ensureLocations(db: Db, organizationId: string, ids: readonly string[], names: readonly string[], at: string) {
  for (const [i, id] of ids.entries()) {
    const existing = await getLocation(db, organizationId, id);
    if (existing) {
      // Locations seeded before the search index existed become findable by q.
      await indexLocation(db, existing);
      continue;
    }
    const location: Location = { id, organizationId, name: names[i], address: `${names[i]}, Demo Street ${i + 1}`, createdAt: at, updatedAt: at };
    await putLocation(db, location);
  }
}

interface DemoKeySpec {
  readonly name: string;
  readonly organizationId: string;
  readonly scopes: readonly string[];
  readonly environment: ApiEnvironment;
  readonly now: string;
}

/** Demo keys are derived from the seed secret, so the same token works after a restart. */
async function ensureKey(db: Db, seedSecret: string, spec: DemoKeySpec): Promise<string> {
  const derived = deriveDemoKey(seedSecret, spec.name, spec.environment);
  if (await getApiKey(db, derived.keyId)) return derived.token;
  const label = `Demo key: ${spec.name}`;
  // Demo keys are the organization's own (internal): the release gate never counts them.
  const { token } = await issueApiKey(db, { organizationId: spec.organizationId, environment: spec.environment, label, scopes: spec.scopes, internal: true, now: spec.now }, () => derived);
  return token;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function deriveDemoKey(seedSecret: string, name: string, environment: ApiEnvironment): IssuedApiKey {
  const material = createHmac('sha256', seedSecret).update(`demo-key:${environment}:${name}`).digest();
  const keyId = Array.from(material.subarray(0, 20), (b) => BASE32[b % 32]).join('');
  const secret = createHash('sha256').update(material).update('secret').digest().toString('base64url');
  return { token: `${KEY_PREFIX[environment]}${keyId}.${secret}`, keyId, secretHash: hashSecret(secret) };
}
