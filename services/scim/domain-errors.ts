import { AppError, type ErrorCode } from '../shared/errors';

/** The `scimType` values of RFC 7644 §3.12 that this service answers with. */
export type ScimType = 'uniqueness' | 'invalidValue' | 'mutability' | 'invalidFilter' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'tooMany';

/**
 * An AppError that names its RFC 7644 `scimType`. SCIM answers every client error with
 * 400 (never 422): Entra ID and Okta only understand the statuses RFC 7644 lists.
 */
export class ScimError extends AppError {
  constructor(
    readonly scimType: ScimType,
    message: string,
    code: ErrorCode = 'VALIDATION_ERROR',
    options: ErrorOptions = {},
  ) {
    super(code, message, { ...options, status: 400 });
    this.name = 'ScimError';
  }
}

export const invalidValue = (detail: string): ScimError => new ScimError('invalidValue', detail);
export const invalidSyntax = (detail: string): ScimError => new ScimError('invalidSyntax', detail, 'BAD_REQUEST');
export const invalidFilter = (detail: string): ScimError => new ScimError('invalidFilter', detail, 'BAD_REQUEST');
export const invalidPath = (detail: string): ScimError => new ScimError('invalidPath', detail, 'BAD_REQUEST');
export const mutability = (detail: string): ScimError => new ScimError('mutability', detail, 'BAD_REQUEST');
export const noTarget = (detail: string): ScimError => new ScimError('noTarget', detail, 'BAD_REQUEST');
