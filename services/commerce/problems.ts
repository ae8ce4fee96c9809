import { conflict, defineProblems } from '../shared/errors';

/** The commerce area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  QUOTE_DRAFT: conflict('Quote is a draft'),
  QUOTE_SENT: conflict('Quote is sent'),
  QUOTE_ACCEPTED: conflict('Quote is accepted'),
  QUOTE_DECLINED: conflict('Quote is declined'),
  QUOTE_EXPIRED: conflict('Quote is expired'),
  QUOTE_CONVERTED: conflict('Quote is converted'),
  INVOICE_DRAFT: conflict('Invoice is a draft'),
  INVOICE_ISSUED: conflict('Invoice is issued'),
  INVOICE_PARTIALLY_PAID: conflict('Invoice is partially paid'),
  INVOICE_PAID: conflict('Invoice is paid'),
  INVOICE_VOID: conflict('Invoice is void'),
});
