import { legacyAreaNamed } from '../legacy-areas';
import { randomUUID } from 'node:crypto';
import { sealRestricted, unsealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { committedWrite } from '../shared/http/idempotent';
import { DEFAULT_LIMIT, listRequest, nextCursor } from '../shared/http/list';
import { requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { created, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody } from '../shared/http/validation';
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
  (deps ??= { store: dynamoEmployeeStore(defaultDb()), now: () => new Date(), newId: randomUUID, seal: (value) => sealRestricted(value, 'bank-account'), unseal: unsealRestricted });

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

export const handler = createHandler({
  area: legacyAreaNamed('employees'),
  operations: {
    async listEmployees(request) {
      const { query, binding, position: position } = await listRequest<typeof listQuerySchema, { after: string }>(request, listQuerySchema);
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
      return committedWrite<EmployeeView>(defaultDb(), request, key, (extra) => createEmployee(employeeDeps(), actorOf(request), body, extra), (v) => employeeResult(request, v, 201));
    },

    async updateEmployee(request) {
      const key = requireIdempotencyKey(request);
      const id = employeeId(request);
      const ifMatch = requireIfMatch(request);
      assertNoReadOnlyFields(request.body, 'update');
      const body = parseBody(updateBodySchema, request.body);
      return committedWrite<EmployeeView>(defaultDb(), request, key, (extra) => updateEmployee(employeeDeps(), actorOf(request), id, ifMatch, body, extra), (v) => employeeResult(request, v, 200));
    },

    async deactivateEmployee(request) {
      const key = requireIdempotencyKey(request);
      const id = employeeId(request);
      const ifMatch = requireIfMatch(request);
      const { reason } = parseBody(deactivateBodySchema, request.body);
      return committedWrite<EmployeeView>(defaultDb(), request, key, (extra) => deactivateEmployee(employeeDeps(), actorOf(request), id, ifMatch, reason, extra), (v) => employeeResult(request, v, 200));
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
      return committedWrite<StoredBankAccount>(defaultDb(), request, key, (extra) => putBankAccount(employeeDeps(), actorOf(request), id, ifMatch, account, extra), bankReceipt);
    },
  },
});
