import { APIGatewayClient, ConflictException, CreateApiKeyCommand, CreateUsagePlanKeyCommand, GetApiKeysCommand, GetUsagePlanKeyCommand, NotFoundException, UpdateApiKeyCommand } from '@aws-sdk/client-api-gateway';
import { usageIdentifierKey } from '../shared/auth/usage';

/**
 * The API Gateway side of an API key: an API Gateway API key whose value is the key's usage
 * identifier, in the environment's per-key usage plan (stack output UsagePlanId). Without it,
 * API Gateway refuses the key's requests (403, INVALID_API_KEY), so the CLI registers it
 * before it stores a new key.
 */
export interface UsagePlanRegistry {
  /** Registers the key in the plan; registering a registered key changes nothing. */
  register(keyId: string): Promise<void>;
  /** Disables the key's API Gateway API key (a revoked key), if there is one. */
  disable(keyId: string): Promise<void>;
  /** Whether the key is registered: its API Gateway API key exists and is in this usage plan. */
  isRegistered(keyId: string): Promise<boolean>;
}

export function usagePlanRegistry(usagePlanId: string, client: Pick<APIGatewayClient, 'send'> = new APIGatewayClient({})): UsagePlanRegistry {
  const find = async (keyId: string) => {
    const out = await client.send(new GetApiKeysCommand({ nameQuery: keyId, includeValues: false, limit: 10 }));
    return (out.items ?? []).find((k) => k.name === keyId);
  };
  return {
    async register(keyId) {
      let apiKeyId = (await find(keyId))?.id;
      if (!apiKeyId) {
        const created = await client.send(new CreateApiKeyCommand({ name: keyId, value: usageIdentifierKey(keyId), enabled: true, description: 'WFM API key usage identifier' }));
        apiKeyId = created.id;
      }
      try {
        await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }));
      } catch (error) {
        // Already in the plan.
        if (!(error instanceof ConflictException)) throw error;
      }
    },
    async disable(keyId) {
      const key = await find(keyId);
      if (key?.id) await client.send(new UpdateApiKeyCommand({ apiKey: key.id, patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }] }));
    },
    async isRegistered(keyId) {
      // An API key outlives the usage plan of a deleted api stack: a new plan holds none of them.
      const key = await find(keyId);
      if (!key?.id) return false;
      try {
        await client.send(new GetUsagePlanKeyCommand({ usagePlanId, keyId: key.id }));
        return true;
      } catch (error) {
        if (error instanceof NotFoundException) return false;
        throw error;
      }
    },
  };
}
