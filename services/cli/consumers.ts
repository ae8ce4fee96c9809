import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, GetQueryResultsCommand, StartQueryCommand } from '@aws-sdk/client-cloudwatch-logs';
import { ACCESS_LOG_QUERY, parseInsightsResults, parseWindow, type KeyUse } from '../api-keys/consumers';
import { checkConsumers, localUses } from './consumers-check';
import { progress } from './progress';
import { fail, operatorDb, usage } from './target';

const USAGE = `Release gate of an in-place contract alignment: is there any external consumer?

  npm run consumers -- check --env test|live [--since 30d] [--log-groups <name,name>]

Reads the key inventory (every issued, non-revoked key with its organization, label, creation
and last use) and the access logs of both REST APIs: the running local API's .local/access.log,
or, with TABLE_NAME set, the stack's access-log groups through CloudWatch Logs Insights (names
from the api stack's outputs, or --log-groups). Exits 1 when a key that is not internal
(issued with --internal) was used within the window: the release stops.`;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({ args: rest, options: { env: { type: 'string', default: 'test' }, since: { type: 'string', default: '30d' }, 'log-groups': { type: 'string' } } });
  if (command !== 'check') return usage(USAGE, command);
  const environment = values.env?.toUpperCase();
  if (environment !== 'TEST' && environment !== 'LIVE') fail(`--env must be test or live, got "${values.env}".`);
  let windowMs: number;
  try {
    windowMs = parseWindow(values.since ?? '30d');
  } catch (error) {
    return fail((error as Error).message);
  }
  const since = new Date(Date.now() - windowMs);
  const { db, description, deployed } = operatorDb();
  console.error(`using ${description}`);
  const uses = deployed
    ? async () => insightsUses(values['log-groups']?.split(',').filter(Boolean) ?? (await stackLogGroups(environment)), since)
    : localUses(join(resolve(process.cwd(), process.env.WFM_LOCAL_DIR ?? '.local'), 'access.log'), since);
  const inventory = progress('key inventory, organizations read');
  const { lines, exitCode } = await checkConsumers({ db, environment, since, uses, onOrganization: (done, total, keys) => inventory.update(done, total, `(${keys} keys)`) });
  inventory.done('done');
  for (const line of lines) console.log(line);
  process.exit(exitCode);
}

/** The access-log groups of the environment's api stack (outputs PublicAccessLogGroupName, ScimAccessLogGroupName). */
async function stackLogGroups(environment: 'TEST' | 'LIVE'): Promise<string[]> {
  const stackName = environment === 'TEST' ? 'WfmTestApi' : 'WfmLiveApi';
  const out = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = out.Stacks?.[0]?.Outputs ?? [];
  const groups = outputs.filter((o) => o.OutputKey === 'PublicAccessLogGroupName' || o.OutputKey === 'ScimAccessLogGroupName').map((o) => o.OutputValue ?? '').filter(Boolean);
  if (groups.length !== 2) fail(`Stack ${stackName} has no access-log group outputs; pass --log-groups.`);
  return groups;
}

/** Runs the Insights query over the log groups and waits for it, showing progress. */
async function insightsUses(logGroupNames: string[], since: Date): Promise<KeyUse[]> {
  const logs = new CloudWatchLogsClient({});
  const { queryId } = await logs.send(new StartQueryCommand({ logGroupNames, startTime: Math.floor(since.getTime() / 1000), endTime: Math.floor(Date.now() / 1000), queryString: ACCESS_LOG_QUERY, limit: 10_000 }));
  const query = progress(`querying ${logGroupNames.length} access-log groups, records scanned`);
  for (;;) {
    const out = await logs.send(new GetQueryResultsCommand({ queryId }));
    if (out.status === 'Complete') {
      query.done(`${out.statistics?.recordsScanned ?? 0} records scanned`);
      return parseInsightsResults(out.results ?? []);
    }
    if (out.status === 'Failed' || out.status === 'Cancelled' || out.status === 'Timeout') fail(`The Logs Insights query ended ${out.status}.`);
    query.update(out.statistics?.recordsScanned ?? 0);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

main().catch((error: unknown) => fail((error as Error).message));
