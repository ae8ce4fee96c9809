import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { getOrganization, listOrganizations, putOrganization, setTimesheetCorrections, type Organization } from '../organization/public';
import { isUuid } from '../shared/time';
import { progress } from './progress';
import { fail, onOff, operatorDb, usage } from './target';

const USAGE = `Manage organizations and their timesheet_corrections capability (entitlement + rollout gate).

  npm run orgs -- create --name <name> [--id <uuid>] [--entitlement on|off] [--rollout on|off]
  npm run orgs -- list
  npm run orgs -- show <organizationId>
  npm run orgs -- set-capability <organizationId> [--entitlement on|off] [--rollout on|off]

Turning either off blocks timesheet writes (409 FEATURE_NOT_ENABLED) and the issuance of
keys with timesheets:write; reads stay available.`;

const describe = (o: Organization) =>
  `${o.id}  "${o.name}"  timesheet_corrections: entitlement ${o.entitlements.timesheetCorrections ? 'on' : 'off'}, rollout gate ${o.rolloutGates.timesheetCorrections ? 'on' : 'off'}`;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { name: { type: 'string' }, id: { type: 'string' }, entitlement: { type: 'string' }, rollout: { type: 'string' } },
  });
  if (!['create', 'list', 'show', 'set-capability'].includes(command ?? '')) return usage(USAGE, command);
  const { db, description } = operatorDb();
  console.error(`using ${description}`);
  const now = new Date().toISOString();

  if (command === 'create') {
    if (!values.name?.trim()) fail('create needs --name.');
    const id = values.id ?? randomUUID();
    if (!isUuid(id)) fail(`--id must be a UUID, got "${id}".`);
    if (await getOrganization(db, id)) fail(`Organization ${id} exists already.`);
    const org: Organization = {
      id: id.toLowerCase(),
      name: values.name.trim(),
      entitlements: { timesheetCorrections: onOff(values.entitlement, 'entitlement') ?? false },
      rolloutGates: { timesheetCorrections: onOff(values.rollout, 'rollout') ?? false },
      createdAt: now,
      updatedAt: now,
    };
    await putOrganization(db, org);
    console.log(describe(org));
    return;
  }
  if (command === 'list') {
    const reading = progress('reading organizations');
    const orgs = await listOrganizations(db, (items, pages) => reading.update(items, undefined, `(page ${pages})`));
    reading.done(`${orgs.length} organizations`);
    if (orgs.length === 0) console.log('no organizations');
    orgs.forEach((o) => console.log(describe(o)));
    return;
  }
  const id = positionals[0];
  if (!id) fail(`${command} needs the organization id.`);
  if (command === 'show') {
    const org = await getOrganization(db, id);
    if (!org) fail(`No organization ${id}.`);
    console.log(describe(org));
    return;
  }
  const entitlement = onOff(values.entitlement, 'entitlement');
  const rolloutGate = onOff(values.rollout, 'rollout');
  if (entitlement === undefined && rolloutGate === undefined) fail('set-capability needs --entitlement and/or --rollout.');
  if (!(await getOrganization(db, id))) fail(`No organization ${id}.`);
  console.log(describe(await setTimesheetCorrections(db, id, { entitlement, rolloutGate }, now)));
}

main().catch((error: unknown) => fail((error as Error).message));
