import { FUNCTIONS } from '../services/registry';
import type { FunctionPermissions, TableAction } from '../services/shared/permissions';

/**
 * What each Lambda function may do: derived from the registry, where every function declares
 * its row (an area in its area.ts, the platform functions in services/registry.ts). Review
 * and adjust a grant there; the api stack turns each row into IAM statements
 * (AreaFunction.bind*), and test/infra/functions.test.ts checks that the synthesized
 * policies hold exactly these actions.
 */
export type { FunctionPermissions, ObjectAction, ObjectGrant, TableAction } from '../services/shared/permissions';

/** A Lambda function of the api stack, by its registry name. */
export type FunctionName = string;

export const FUNCTION_PERMISSIONS: Readonly<Record<FunctionName, FunctionPermissions>> = Object.fromEntries(FUNCTIONS.map((f) => [f.name, f.permissions]));

export const FUNCTION_NAMES: readonly FunctionName[] = FUNCTIONS.map((f) => f.name);

/** `dynamodb:GetItem` */
export const dynamoDbAction = (action: TableAction): string => `dynamodb:${action}`;

/** The Secrets Manager actions of an `integrationSecrets` row, sorted. */
export const secretStoreActions = (access: readonly ('read' | 'write')[]): string[] =>
  [...(access.includes('read') ? ['secretsmanager:GetSecretValue'] : []), ...(access.includes('write') ? ['secretsmanager:CreateSecret', 'secretsmanager:DeleteSecret', 'secretsmanager:PutSecretValue'] : [])].sort();
