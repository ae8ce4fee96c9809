import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { getApiKey } from '../api-keys/store';
import { apiEnvironment } from '../shared/config';
import { defaultDb } from '../shared/ddb/client';
import { usageIdentifierKey } from '../shared/auth/usage';
import { logger } from '../shared/logger';
import { authorize } from './authorize';

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
  return {
    principalId: decision.principalId,
    policyDocument: decision.policy as APIGatewayAuthorizerResult['policyDocument'],
    context: { ...decision.context },
    // The key's usage plan throttles it (apiKeySource AUTHORIZER): fair use per tenant.
    usageIdentifierKey: usageIdentifierKey(decision.context.keyId),
  };
};
