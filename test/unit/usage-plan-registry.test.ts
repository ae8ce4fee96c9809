import { CreateUsagePlanKeyCommand, GetApiKeysCommand, GetUsagePlanKeyCommand, NotFoundException } from '@aws-sdk/client-api-gateway';
import { usagePlanRegistry } from '../../services/cli/usage-plan';

/**
 * `npm run keys -- sync-usage-plan` registers the keys `isRegistered` denies. An API Gateway
 * API key outlives the usage plan of a deleted api stack, so "registered" means: the API key
 * exists AND is in this plan. API Gateway has no local emulator: a fake client answers the
 * three calls the registry makes.
 */
function fakeGateway(apiKeys: Record<string, string>, planKeys: Record<string, Set<string>>) {
  const sent: string[] = [];
  return {
    sent,
    client: {
      send: async (command: unknown) => {
        sent.push((command as object).constructor.name);
        if (command instanceof GetApiKeysCommand) return { items: Object.entries(apiKeys).filter(([name]) => name === command.input.nameQuery).map(([name, id]) => ({ name, id })) };
        if (command instanceof GetUsagePlanKeyCommand) {
          if (planKeys[command.input.usagePlanId!]?.has(command.input.keyId!)) return { id: command.input.keyId };
          throw new NotFoundException({ message: 'Invalid Usage Plan Key identifier specified', $metadata: {} });
        }
        if (command instanceof CreateUsagePlanKeyCommand) {
          (planKeys[command.input.usagePlanId!] ??= new Set()).add(command.input.keyId!);
          return {};
        }
        throw new Error(`unexpected ${(command as object).constructor.name}`);
      },
    } as never,
  };
}

describe('usagePlanRegistry.isRegistered', () => {
  it('is true only for a key whose API key is in this usage plan', async () => {
    const gateway = fakeGateway({ k1: 'ak1' }, { 'old-plan': new Set(['ak1']) });
    expect(await usagePlanRegistry('old-plan', gateway.client).isRegistered('k1')).toBe(true);
  });

  it('is false for a key whose API key survived the plan of a re-created api stack, and sync then adds it to the new plan', async () => {
    const gateway = fakeGateway({ k1: 'ak1' }, { 'old-plan': new Set(['ak1']) });
    const registry = usagePlanRegistry('new-plan', gateway.client);
    expect(await registry.isRegistered('k1')).toBe(false);
    await registry.register('k1');
    expect(await registry.isRegistered('k1')).toBe(true);
    expect(gateway.sent).not.toContain('CreateApiKeyCommand');
  });

  it('is false for a key without an API key', async () => {
    expect(await usagePlanRegistry('plan', fakeGateway({}, {}).client).isRegistered('k9')).toBe(false);
  });
});
