import { createHmac, randomUUID } from 'node:crypto';
import { sealRestricted, unsealRestricted } from '../shared/crypto/restricted';
import { cursorKey } from '../shared/crypto/secrets';
import { defaultDb } from '../shared/ddb/client';
import { canonical } from '../shared/ddb/cursor';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { idempotentWrite, toStored } from '../shared/http/idempotent';
import { cursorBinding, DEFAULT_LIMIT, nextCursor, readCursor } from '../shared/http/list';
import { requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { created, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody, parseQuery } from '../shared/http/validation';
import { isUuid } from '../shared/time';
import type { StoredBankAccount } from './bank-store';
import {
  bankAccountEtag,
  createEmployee,
  deactivateEmployee,
  employeeEtag,
  putBankAccount,
  readBankAccount,
  readEmployee,
  updateEmployee,
  type Actor,
  type EmployeeDeps,
  type EmployeeView,
  type ExtraItems,
} from './domain';
import { dynamoEmployeeStore } from './dynamo-store';
import {
  assertNoReadOnlyFields,
  bankAccountBodySchema,
  bankAccountResponse,
  createBodySchema,
  deactivateBodySchema,
  employeeDetail,
  employeeSummary,
  listQuerySchema,
  updateBodySchema,
} from './schemas';

let deps: EmployeeDeps | undefined;
const employeeDeps = (): EmployeeDeps =>
  (deps ??= { store: dynamoEmployeeStore(defaultDb()), now: () => new Date(), newId: randomUUID, seal: sealRestricted, unseal: unsealRestricted });

const actorOf = (request: ApiRequest): Actor => ({ principal: request.principal, requestId: request.requestId });

const employeePath = (request: ApiRequest, id: string) => `/v1/organizations/${request.principal.organizationId}/employees/${id}`;

function employeeId(request: ApiRequest): string {
  const id = request.pathParameters.employeeId ?? '';
  if (!isUuid(id)) throw new NotFoundError(`Employee ${id}`);
  return id.toLowerCase();
}

const employeeResult = (request: ApiRequest, view: EmployeeView, status: 200 | 201): HttpResult => {
  const body = employeeDetail(view.employee, view.maskedIban, request.principal);
  const headers = { ETag: employeeEtag(view.employee) };
  return status === 201 ? created(body, { ...headers, Location: employeePath(request, view.employee.id) }) : ok(body, headers);
};

/** PUT answers with a receipt, never the account: replayable responses are stored for 24 hours. */
const bankReceipt = (account: StoredBankAccount): HttpResult =>
  ok({ employeeId: account.employeeId, maskedIban: account.maskedIban ?? null, updatedAt: account.updatedAt }, { ETag: bankAccountEtag(account.employeeId, account) });

/**
 * The input an Idempotency-Key is bound to (path, body, If-Match) as a keyed digest: the stored
 * payload hash of a plain SHA-256 over a body with an IBAN or tax ID could be brute-forced back.
 */
async function idempotencyInput(request: ApiRequest): Promise<string> {
  const key = createHmac('sha256', await cursorKey()).update('employees:idempotency-input:v1').digest();
  const input = canonical({ path: request.pathParameters, body: request.body ?? null, ifMatch: request.headers['if-match'] ?? null });
  return createHmac('sha256', key).update(JSON.stringify(input)).digest('base64url');
}

/**
 * A write that runs once per Idempotency-Key; the idempotency record of its response is
 * committed in the write's own transaction.
 */
async function committedWrite<T>(
  request: ApiRequest,
  key: string,
  respond: (result: T) => HttpResult,
  run: (d: EmployeeDeps, extra: ExtraItems<T>) => Promise<T>,
): Promise<HttpResult> {
  const d = employeeDeps();
  return idempotentWrite(defaultDb(), request, key, await idempotencyInput(request), async (complete) => {
    const result = await run(d, async (planned) => [await complete(toStored(respond(planned)))]);
    return respond(result);
  });
}

export const handler = createHandler({
  area: 'employees',
  operations: {
    async listEmployees(request) {
      const query = parseQuery(listQuerySchema, request.query);
      const binding = cursorBinding(request, query);
      const position = await readCursor<{ after: string }>(binding, query.cursor);
      const page = await employeeDeps().store.list(request.principal.organizationId, {
        limit: query.limit ?? DEFAULT_LIMIT,
        ...(query.q !== undefined ? { q: query.q } : {}),
        ...(query.active !== undefined ? { active: query.active } : {}),
        ...(position ? { after: position.after } : {}),
      });
      return ok({
        items: page.employees.map((e) => employeeSummary(e, request.principal)),
        nextCursor: await nextCursor(binding, page.after !== undefined ? { after: page.after } : undefined),
      });
    },

    async getEmployee(request) {
      const view = await readEmployee(employeeDeps(), request.principal.organizationId, employeeId(request));
      return employeeResult(request, view, 200);
    },

    async createEmployee(request) {
      const key = requireIdempotencyKey(request);
      assertNoReadOnlyFields(request.body, 'create');
      const body = parseBody(createBodySchema, request.body);
      return committedWrite<EmployeeView>(request, key, (v) => employeeResult(request, v, 201), (d, extra) => createEmployee(d, actorOf(request), body, extra));
    },

    async updateEmployee(request) {
      const key = requireIdempotencyKey(request);
      const id = employeeId(request);
      const ifMatch = requireIfMatch(request);
      assertNoReadOnlyFields(request.body, 'update');
      const body = parseBody(updateBodySchema, request.body);
      return committedWrite<EmployeeView>(request, key, (v) => employeeResult(request, v, 200), (d, extra) => updateEmployee(d, actorOf(request), id, ifMatch, body, extra));
    },

    async deactivateEmployee(request) {
      const key = requireIdempotencyKey(request);
      const id = employeeId(request);
      const ifMatch = requireIfMatch(request);
      const { reason } = parseBody(deactivateBodySchema, request.body);
      return committedWrite<EmployeeView>(request, key, (v) => employeeResult(request, v, 200), (d, extra) => deactivateEmployee(d, actorOf(request), id, ifMatch, reason, extra));
    },

    async getBankAccount(request) {
      const view = await readBankAccount(employeeDeps(), request.principal.organizationId, employeeId(request));
      return ok(bankAccountResponse(view.employeeId, view.account, view.stored?.updatedAt ?? null), { ETag: bankAccountEtag(view.employeeId, view.stored) });
    },

    async putBankAccount(request) {
      const key = requireIdempotencyKey(request);
      const id = employeeId(request);
      const ifMatch = requireIfMatch(request);
      const account = parseBody(bankAccountBodySchema, request.body);
      return committedWrite<StoredBankAccount>(request, key, bankReceipt, (d, extra) => putBankAccount(d, actorOf(request), id, ifMatch, account, extra));
    },
  },
});
