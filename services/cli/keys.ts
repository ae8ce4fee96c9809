import { parseArgs } from 'node:util';
import { issueApiKey, KeyIssuanceError } from '../api-keys/issue';
import { listApiKeys, revokeApiKey } from '../api-keys/store';
import { SCOPES } from '../routes';
import { progress } from './progress';
import { fail, operatorDb, organizationOption, usage } from './target';
import { usagePlanRegistry } from './usage-plan';

const USAGE = `Manage API keys (the clear secret is shown once, at creation; only its hash is stored).

  npm run keys -- create --org <organizationId> --label <text> --scopes <scope,scope,...> [--env test|live] [--valid-until <RFC 3339>] [--internal]
  npm run keys -- list --org <organizationId>
  npm run keys -- revoke <keyId>
  npm run keys -- sync-usage-plan --org <organizationId>
  npm run keys -- scopes

Target: the running local API (npm start), or a deployed table with TABLE_NAME=<table> AWS_REGION=<region>.
On a deployed table create, revoke and sync-usage-plan also need USAGE_PLAN_ID=<the api stack's
UsagePlanId output>: every key is registered in that per-key usage plan when it is created
(sync-usage-plan registers keys issued before), and disabled there when it is revoked; list
needs no usage plan. A revoked key stops working within the authorizer cache time (60 s).
--internal marks the organization's own key (staff, tests, demos): the release gate
(npm run consumers) counts every other key it sees in use as an external consumer.`;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { org: { type: 'string' }, label: { type: 'string' }, scopes: { type: 'string' }, env: { type: 'string', default: 'test' }, 'valid-until': { type: 'string' }, internal: { type: 'boolean', default: false } },
  });
  if (command === 'scopes') {
    console.log(SCOPES.join('\n'));
    return;
  }
  if (command !== 'create' && command !== 'list' && command !== 'revoke' && command !== 'sync-usage-plan') return usage(USAGE, command);
  if (values.org !== undefined) organizationOption(values.org);
  const { db, description, deployed } = operatorDb();
  console.error(`using ${description}`);
  // In AWS every key needs its usage-plan key: create registers it, revoke disables it,
  // sync-usage-plan registers the ones issued before; list only reads the table. Locally there
  // is no usage plan to register in.
  const usagePlanId = process.env.USAGE_PLAN_ID;
  if (deployed && !usagePlanId && command !== 'list') fail(`${command} on a deployed table needs USAGE_PLAN_ID: use the UsagePlanId output of the api stack (keys without their usage-plan key are refused by API Gateway).`);
  const plan = deployed && usagePlanId ? usagePlanRegistry(usagePlanId) : undefined;

  if (command === 'create') {
    if (!values.org || !values.label || !values.scopes) fail('create needs --org, --label and --scopes.');
    const environment = values.env?.toUpperCase();
    if (environment !== 'TEST' && environment !== 'LIVE') fail(`--env must be test or live, got "${values.env}".`);
    try {
      const { token, record } = await issueApiKey(db, {
        organizationId: values.org,
        environment,
        label: values.label,
        scopes: values.scopes.split(',').map((s) => s.trim()).filter(Boolean),
        validUntil: values['valid-until'],
        internal: values.internal,
        now: new Date().toISOString(),
      }, undefined, async (record) => plan?.register(record.keyId));
      console.log(`key id:   ${record.keyId}`);
      console.log(`label:    ${record.label}`);
      console.log(`scopes:   ${record.scopes.join(' ')}`);
      console.log(`api key:  ${token}`);
      console.log('Store the API key now: it is shown only this once.');
    } catch (error) {
      if (error instanceof KeyIssuanceError) fail(error.message);
      throw error;
    }
    return;
  }

  if (command === 'list') {
    if (!values.org) fail('list needs --org.');
    const reading = progress('reading keys');
    const keys = await listApiKeys(db, values.org, (items, pages) => reading.update(items, undefined, `(page ${pages})`));
    reading.done(`${keys.length} keys`);
    if (keys.length === 0) console.log('no keys');
    for (const k of keys) {
      const status = k.revokedAt ? `revoked ${k.revokedAt}` : k.validUntil && Date.parse(k.validUntil) <= Date.now() ? `expired ${k.validUntil}` : 'active';
      const used = k.lastUsedAt ? `last used ${k.lastUsedAt} (${k.lastRoute ?? '?'})` : 'never used';
      console.log(`${k.keyId}  ${k.environment}  ${status}  ${k.internal ? 'internal' : 'external'}  ${used}  "${k.label}"  ${k.scopes.join(' ')}`);
    }
    return;
  }

  if (command === 'sync-usage-plan') {
    if (!values.org) fail('sync-usage-plan needs --org.');
    if (!plan) fail('sync-usage-plan works on a deployed table (TABLE_NAME, USAGE_PLAN_ID); locally there is no usage plan.');
    const keys = (await listApiKeys(db, values.org)).filter((k) => !k.revokedAt);
    let registered = 0;
    const syncing = progress('keys checked in the usage plan');
    for (const [i, key] of keys.entries()) {
      if (!(await plan.isRegistered(key.keyId))) {
        await plan.register(key.keyId);
        registered += 1;
      }
      syncing.update(i + 1, keys.length, key.keyId);
    }
    syncing.done(`${keys.length} keys, ${registered} registered`);
    console.log(`${registered} of ${keys.length} active keys registered now; the others already were.`);
    return;
  }

  const keyId = positionals[0];
  if (!keyId) fail('revoke needs the key id: npm run keys -- revoke <keyId>.');
  const revoked = await revokeApiKey(db, keyId, new Date().toISOString());
  if (!revoked) fail(`No key ${keyId}.`);
  await plan?.disable(keyId);
  console.log(`revoked ${revoked.keyId} at ${revoked.revokedAt}`);
}

main().catch((error: unknown) => fail((error as Error).message));
