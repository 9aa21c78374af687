import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError, INTERNAL_ERROR, errorResponse } from '../http';

/**
 * Maps errors to HTTP responses in one place: an HttpError becomes its status with a JSON body that says
 * what is wrong and where; anything else is logged and becomes a generic 500 that leaks nothing.
 */
export function httpErrorHandler(
  logger: Logger,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: (request) => {
      const err = request.error;
      if (err instanceof HttpError) {
        request.response = errorResponse(err);
        return;
      }
      logger.error('unhandled error', { error: err as Error });
      request.response = INTERNAL_ERROR;
    },
  };
}
