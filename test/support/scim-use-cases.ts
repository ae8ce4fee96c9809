import { randomUUID } from 'node:crypto';
import type { Employee } from '../../services/employees/public';
import * as scim from '../../services/scim/domain';
import { scimUserStore } from '../../services/scim/store';
import type { Db } from '../../services/shared/ddb/client';
import type { TxItem } from '../../services/shared/ddb/transaction';
import { READ_ONLY_UNIT, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { retryOnConflict } from '../../services/shared/domain/conflict';

/**
 * The SCIM use cases run as the area handler runs them (services/shared/http/area-handler.ts):
 * one unit of work per attempt, committed with the caller's items (where the handler puts the
 * idempotency record), again from the reads while something read moved. Data tests call
 * them with the signatures they had before the area kit: `(deps, ...)`.
 */
export interface ScimDeps {
  readonly db: Db;
}

const ports = (db: Db, unit: UnitOfWork): scim.ScimPorts => ({
  store: scimUserStore(db, unit),
  now: () => new Date(),
  newId: randomUUID,
});

async function inUnit<T>(db: Db, work: (p: scim.ScimPorts) => Promise<T>, extra?: (result: T) => Promise<readonly TxItem[]>): Promise<T> {
  return retryOnConflict(async () => {
    const unit = new TransactionUnit(db);
    const result = await work(ports(db, unit));
    await unit.commit(extra ? await extra(result) : []);
    return result;
  });
}

type Tail<F> = F extends (deps: never, ...rest: infer R) => unknown ? R : never;

export const scimDeps = (db: Db): ScimDeps => ({ db });

export const createUser = (deps: ScimDeps, actor: scim.Actor, fields: Tail<typeof scim.createUser>[1], extra?: (after: Employee) => Promise<readonly TxItem[]>) =>
  inUnit(deps.db, (p) => scim.createUser(p, actor, fields), extra && ((r) => extra(r.user)));
export const updateUser = (deps: ScimDeps, ...args: Tail<typeof scim.updateUser>) => inUnit(deps.db, (p) => scim.updateUser(p, ...args));
export const deleteUser = (deps: ScimDeps, ...args: Tail<typeof scim.deleteUser>) => inUnit(deps.db, (p) => scim.deleteUser(p, ...args));
export const getUser = (deps: ScimDeps, ...args: Tail<typeof scim.getUser>) => scim.getUser(ports(deps.db, READ_ONLY_UNIT), ...args);
export const listUsers = (deps: ScimDeps, ...args: Tail<typeof scim.listUsers>) => scim.listUsers(ports(deps.db, READ_ONLY_UNIT), ...args);
export type { Actor } from '../../services/scim/domain';
