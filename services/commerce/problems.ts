import { defineProblems } from '../shared/errors';

/** The commerce area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  QUOTE_DRAFT: { status: 409, title: 'Quote is a draft' },
  QUOTE_SENT: { status: 409, title: 'Quote is sent' },
  QUOTE_ACCEPTED: { status: 409, title: 'Quote is accepted' },
  QUOTE_DECLINED: { status: 409, title: 'Quote is declined' },
  QUOTE_EXPIRED: { status: 409, title: 'Quote is expired' },
  QUOTE_CONVERTED: { status: 409, title: 'Quote is converted' },
  INVOICE_DRAFT: { status: 409, title: 'Invoice is a draft' },
  INVOICE_ISSUED: { status: 409, title: 'Invoice is issued' },
  INVOICE_PARTIALLY_PAID: { status: 409, title: 'Invoice is partially paid' },
  INVOICE_PAID: { status: 409, title: 'Invoice is paid' },
  INVOICE_VOID: { status: 409, title: 'Invoice is void' },
});
