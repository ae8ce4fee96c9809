import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { getApiKey, recordKeyUse, useIsDue } from '../api-keys/store';
import { apiEnvironment } from '../shared/config';
import { defaultDb } from '../shared/ddb/client';
import { usageIdentifierKey } from '../shared/auth/usage';
import { logger } from '../shared/logger';
import { authorize, routeFamilyOf } from './authorize';

export { AUTHORIZER_CACHE_SECONDS } from './cache';

/**
 * The REQUEST authorizer of both REST APIs. Throwing `Unauthorized` is how a Lambda
 * authorizer makes API Gateway answer 401 (the UNAUTHORIZED gateway response).
 */
export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const authorization = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const decision = await authorize(
    { environment: apiEnvironment(), loadKey: (keyId) => getApiKey(defaultDb(), keyId), now: () => new Date() },
    authorization,
    event.methodArn,
  );
  if (!decision.allow) {
    logger.info('API key rejected', { reason: decision.reason, keyId: decision.keyId, requestId: event.requestContext?.requestId });
    throw new Error('Unauthorized');
  }
  // The key's last use, for the release gate (npm run consumers): at most one write per key
  // per interval, and never a reason to refuse the request.
  const now = new Date();
  if (useIsDue(decision.lastUsedAt, now)) {
    await recordKeyUse(defaultDb(), decision.context.keyId, now, routeFamilyOf(event.methodArn)).catch((error: unknown) => {
      logger.warn('Could not record the key use', { keyId: decision.context.keyId, error: error as Error });
    });
  }
  return {
    principalId: decision.principalId,
    policyDocument: decision.policy as APIGatewayAuthorizerResult['policyDocument'],
    context: { ...decision.context },
    // The key's usage plan throttles it (apiKeySource AUTHORIZER): fair use per tenant.
    usageIdentifierKey: usageIdentifierKey(decision.context.keyId),
  };
};
