import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDb, type Db } from '../shared/ddb/client';
import { isUuid } from '../shared/time';

/**
 * Which table an operator command works on: TABLE_NAME (and the usual AWS credentials and
 * AWS_REGION) for a deployed stack, otherwise the running local API (`npm start` writes
 * runtime.json with its DynamoDB Local endpoint into .local/, or into WFM_LOCAL_DIR when set:
 * the same variable picks the same server).
 */
export function operatorDb(): { db: Db; description: string; deployed: boolean } {
  const tableName = process.env.TABLE_NAME;
  if (tableName) {
    const endpoint = process.env.DYNAMODB_ENDPOINT || undefined;
    return { db: createDb({ tableName, endpoint }), description: `table ${tableName}${endpoint ? ` at ${endpoint}` : ` in ${process.env.AWS_REGION ?? 'the default AWS region'}`}`, deployed: !endpoint };
  }
  const localDir = resolve(process.cwd(), process.env.WFM_LOCAL_DIR ?? '.local');
  const runtime = join(localDir, 'runtime.json');
  if (!existsSync(runtime)) {
    throw new Error(`No target: no running local API writes ${runtime}. Start it with \`npm start\` (with the same WFM_LOCAL_DIR, if it has one), or set TABLE_NAME (with AWS credentials and AWS_REGION) to work on a deployed table.`);
  }
  const { tableName: localTable, dynamodbEndpoint } = JSON.parse(readFileSync(runtime, 'utf8')) as { tableName: string; dynamodbEndpoint: string };
  return { db: createDb({ tableName: localTable, endpoint: dynamodbEndpoint }), description: `local table ${localTable} (${dynamodbEndpoint})`, deployed: false };
}

export function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(2);
}

/**
 * The usage for a command line without a command or with `help` (stdout, exit 0); for any other
 * command it says that command is unknown, then the usage, on stderr, exit 2.
 */
export function usage(text: string, command: string | undefined): void {
  if (command === undefined || command === 'help') {
    console.log(text);
    return;
  }
  console.error(`error: unknown command "${command}"\n\n${text}`);
  process.exit(2);
}

/** An --org value: an organization id is a UUID; anything else would only ever find nothing. */
export function organizationOption(value: string, option = 'org'): string {
  if (!isUuid(value)) fail(`--${option} must be an organization id (a UUID), got "${value}".`);
  return value;
}

export const onOff = (value: string | undefined, option: string): boolean | undefined => {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  return fail(`--${option} takes on or off, got "${value}".`);
};
