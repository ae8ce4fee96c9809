import { randomUUID } from 'node:crypto';
import { sealRestricted, unsealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { employeesArea } from './area';
import { createEmployee, deactivateEmployee, employeeEtag, readEmployee, updateEmployee, type EmployeePorts, type EmployeeView } from './domain';
import { bankAccountEtag, putBankAccount, readBankAccount } from './domain-bank';
import { bankAccountReceipt, bankAccountResponse, employeeDetail, employeeSummary } from './schemas';
import { employeesStore } from './store';
import { listEmployees } from './store-reads';
import type { Principal } from '../shared/auth/principal';

const employeeResult = (view: EmployeeView, status: 200 | 201, principal: Principal, orgPath: string): HttpResult => {
  const body = employeeDetail(view.employee, view.maskedIban, principal);
  const headers = { ETag: employeeEtag(view.employee) };
  return status === 201 ? created(body, { ...headers, Location: `${orgPath}/employees/${view.employee.id}` }) : ok(body, headers);
};

export const handler = areaHandler(employeesArea, {
  ports: (unit): EmployeePorts => ({ store: employeesStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID, seal: (value) => sealRestricted(value, 'bank-account'), unseal: unsealRestricted }),
  operations: {
    async listEmployees(request) {
      const { query, principal } = request;
      const { binding, position } = await listPosition<{ after: string }>(request);
      const page = await listEmployees(defaultDb(), principal.organizationId, { limit: query.limit ?? DEFAULT_LIMIT, q: query.q, active: query.active, after: position?.after });
      return ok({
        items: page.employees.map((e) => employeeSummary(e, principal)),
        nextCursor: await nextCursor(binding, page.after !== undefined ? { after: page.after } : undefined),
      });
    },

    getEmployee: async (r) => employeeResult(await readEmployee(r.ports, r.principal.organizationId, r.params.employeeId), 200, r.principal, r.orgPath),

    createEmployee: async (r) => employeeResult(await createEmployee(r.ports, r.actor, r.body), 201, r.principal, r.orgPath),

    updateEmployee: async (r) => employeeResult(await updateEmployee(r.ports, r.actor, r.params.employeeId, r.ifMatch, r.body), 200, r.principal, r.orgPath),

    deactivateEmployee: async (r) => employeeResult(await deactivateEmployee(r.ports, r.actor, r.params.employeeId, r.ifMatch, r.body.reason), 200, r.principal, r.orgPath),

    async getBankAccount(r) {
      const view = await readBankAccount(r.ports, r.principal.organizationId, r.params.employeeId);
      return ok(bankAccountResponse(view.employeeId, view.account, view.stored?.updatedAt ?? null), { ETag: bankAccountEtag(view.employeeId, view.stored) });
    },

    async putBankAccount(r) {
      const account = await putBankAccount(r.ports, r.actor, r.params.employeeId, r.ifMatch, r.body);
      return ok(bankAccountReceipt(account), { ETag: bankAccountEtag(account.employeeId, account) });
    },
  },
});
