import { createHash, randomUUID } from 'node:crypto';
import { rotateQr, type LocationPorts } from '../../services/locations/domain';
import { locationsStore, putLocation } from '../../services/locations/store';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { scanTable } from '../support/api';
import { createTestTable } from '../support/table';

/**
 * The QR secret on DynamoDB Local: with the random source under the test's control, the clear
 * secret is nowhere in the table after a rotation, in any encoding, and its SHA-256 is.
 */
let db: Db;
const ORG = '7a7a7a7a-7a7a-4a7a-8a7a-7a7a7a7a7a7a';
const LOC = '7b7b7b7b-7b7b-4b7b-8b7b-7b7b7b7b7b7b';
const principal: Principal = { organizationId: ORG, keyId: 'qrkey', keyLabel: 'QR test', environment: 'TEST', scopes: new Set(['locations:qr']) };

beforeAll(async () => {
  db = await createTestTable();
  const now = new Date().toISOString();
  await putLocation(db, { id: LOC, organizationId: ORG, name: 'Gate', createdAt: now, updatedAt: now });
});

function portsWith(unit: UnitOfWork, secret: Buffer, reference: Buffer): LocationPorts {
  const draws = [secret, reference];
  return { store: locationsStore(db, unit), now: () => new Date(), newId: randomUUID, randomBytes: (size) => draws.shift()!.subarray(0, size) };
}

describe('rotateQr on DynamoDB Local', () => {
  it('stores the SHA-256 of the secret and never the secret itself', async () => {
    const secret = Buffer.alloc(32, 0xab);
    const rotation = await inUnitOfWork(db, (unit) => rotateQr(portsWith(unit, secret, Buffer.alloc(16, 0x01)), { principal, requestId: 'req-1' }, LOC));
    expect(rotation.publicReference).toBe(`qr_${'01'.repeat(16)}`);

    const clear = secret.toString('base64url');
    const table = JSON.stringify(await scanTable(db));
    for (const encoding of [clear, secret.toString('hex'), secret.toString('base64')]) expect(table).not.toContain(encoding);
    const stored = (await scanTable(db)).find((i) => i.itemType === 'LocationQrSecret')!;
    expect(stored.secretHash).toBe(createHash('sha256').update(clear, 'utf8').digest('hex'));
    expect(JSON.stringify(rotation)).not.toContain(stored.secretHash);
  });

  it("commits the caller's items (the idempotency record) in the rotation's own transaction", async () => {
    const marker = { PK: `TEST#${randomUUID()}`, SK: 'MARK' };
    const unit = new TransactionUnit(db);
    const outcome = await rotateQr(portsWith(unit, Buffer.alloc(32, 2), Buffer.alloc(16, 2)), { principal, requestId: 'req-2' }, LOC);
    await unit.commit([{ label: 'marker', op: { Put: { Item: { ...marker, publicReference: outcome.publicReference } } } }]);
    const items = await scanTable(db);
    expect(items.find((i) => i.PK === marker.PK)?.publicReference).toBe(items.find((i) => i.itemType === 'LocationQrSecret')!.publicReference);
  });
});
