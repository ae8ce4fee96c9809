import type { z } from 'zod';
import type { ErrorCode } from '../shared/errors';

/** How an area describes its operations for the OpenAPI document (services/openapi/document.ts). */
export type RequestHeader = 'Idempotency-Key' | 'If-Match';
export type ResponseHeader = 'ETag' | 'Location' | 'Idempotency-Replayed' | 'Content-Disposition';

export interface OperationDoc {
  readonly description: string;
  /** The strict zod query schema; every key becomes a query parameter. */
  readonly query?: z.ZodObject;
  /** The strict zod body schema, as accepted (input side). */
  readonly body?: z.ZodType;
  readonly headers?: Partial<Record<RequestHeader, 'required' | 'optional'>>;
  /** `ref` names a schema of the area's `schemas` (or another area's). */
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly ref?: string;
    readonly headers?: readonly ResponseHeader[];
    /** Non-JSON content (files), by media type: a JSON Schema each. */
    readonly content?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  };
  readonly problems: readonly ErrorCode[];
}

export interface AreaDocs {
  /** Keyed by the operation names of services/routes.ts. */
  readonly operations: Readonly<Record<string, OperationDoc>>;
  /** Response schemas, by component name (as returned: output side). */
  readonly schemas: Readonly<Record<string, z.ZodType>>;
}
