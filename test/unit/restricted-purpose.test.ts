import { randomBytes } from 'node:crypto';
import { sealRestricted, unsealRestricted } from '../../services/shared/crypto/restricted';

/**
 * Issue 12, item 7: every sealed value is bound to its purpose (the KMS encryption context in
 * AWS, the local wrap's authenticated data here), so a value sealed as evidence cannot be
 * opened as a bank account, and the purpose cannot be rewritten on the stored value.
 */
beforeAll(() => {
  process.env.RESTRICTED_DATA_LOCAL_KEY ??= randomBytes(32).toString('base64');
  delete process.env.RESTRICTED_DATA_KEY_ID;
});

describe('sealing for a purpose', () => {
  it('records the purpose and opens with it', async () => {
    const sealed = await sealRestricted({ iban: 'DE89370400440532013000' }, 'bank-account');
    expect(sealed.purpose).toBe('bank-account');
    expect(await unsealRestricted(sealed)).toEqual({ iban: 'DE89370400440532013000' });
  });

  it('seals as evidence by default', async () => {
    expect((await sealRestricted({ latitude: 1, longitude: 2 })).purpose).toBe('evidence');
  });

  it('refuses a sealed value whose purpose was rewritten', async () => {
    const coordinates = await sealRestricted({ latitude: 51.2, longitude: 6.7 }, 'evidence');
    await expect(unsealRestricted({ ...coordinates, purpose: 'bank-account' })).rejects.toThrow();
  });
});
