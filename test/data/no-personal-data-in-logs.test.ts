import { randomUUID } from 'node:crypto';
import { employeeChangeItems, putEmployee, type Employee } from '../../services/employees/public';
import { auditEntry } from '../../services/audit/model';
import type { Db } from '../../services/shared/ddb/client';
import { TransactionUnit } from '../../services/shared/ddb/unit-of-work';
import { logger } from '../../services/shared/logger';
import { createTestTable } from '../support/table';
import { withCapturedLogs } from '../support/logs';

/**
 * A black-box finding: concurrent SCIM PATCHes logged transaction-cancellation labels that
 * held e-mail addresses and name words (`search:<email>`). Labels name roles only; this test
 * makes an employee change fail its condition, captures every log line, and looks for the
 * personal values the transaction wrote.
 */
let db: Db;
const ORG = '33333333-3333-4333-8333-333333333333';
const EMAIL = 'ingrid.halvorsen@fjord.example';
const NAME = 'Ingrid Halvorsen';

beforeAll(async () => {
  db = await createTestTable();
});

describe('a failed transaction', () => {
  it('logs the roles of the failed items, never the personal values they carried', async () => {
    const at = new Date().toISOString();
    const stored: Employee = { id: randomUUID(), organizationId: ORG, userName: EMAIL, displayName: NAME, emails: [{ value: EMAIL }], active: true, createdAt: at, updatedAt: at, version: 3 };
    await putEmployee(db, stored);
    // Computed from version 1, which is long gone: the employee's condition fails.
    const before = { ...stored, version: 1 };
    const after = { ...before, displayName: `${NAME} Berg`, version: 2 };
    const audit = auditEntry({ id: randomUUID(), actor: { system: 'Test', organizationId: ORG, requestId: 'req' }, occurredAt: at, action: 'employee.updated', entity: { type: 'employee', id: stored.id } });
    const unit = new TransactionUnit(db);
    unit.stage({ items: employeeChangeItems({ before, after, guards: [], audit, extra: [] }), audit: { auditedBy: 'the items above' } });

    let failure: unknown;
    const { logs: text } = await withCapturedLogs(() =>
      unit.commit().catch((error: unknown) => {
        failure = error;
        logger.error('Request failed', { error: error as Error });
      }),
    );
    expect(failure).toBeDefined();
    expect(text).toMatch(/employee/);
    for (const value of [EMAIL, 'ingrid', 'halvorsen', 'berg', 'fjord']) expect(text.toLowerCase()).not.toContain(value);
  });
});
