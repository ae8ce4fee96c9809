import { assertDraft, assertRecipientCount, MAX_LISTED_EMPLOYEES, MAX_RECIPIENTS, MAX_TRANSACTION_RECIPIENTS, normalizeAudience, readInstant, resolveAudience, teamWindow, TEAM_DAYS, type Message, type MessagesStore } from '../../services/messages/domain';
import { createMessageBody, markReadBody, messageListQuery, updateMessageBody } from '../../services/messages/schemas';
import { MAX_TRANSACTION_ITEMS } from '../../services/shared/ddb/transaction';

/** The pure rules of messages: states, the recipient bound, read times, the team window, audience resolution, input shapes. */

const draft: Message = {
  id: 'm1',
  organizationId: 'o1',
  subject: 's',
  body: 'b',
  audience: { type: 'EVERYONE' },
  state: 'DRAFT',
  attachments: [],
  recipientCount: null,
  sendId: null,
  sentAt: null,
  retractedAt: null,
  version: 1,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
};

describe('states', () => {
  it('lets only a DRAFT change; SENT and RETRACTED answer their own codes', () => {
    expect(() => assertDraft(draft, 'changed')).not.toThrow();
    expect(() => assertDraft({ ...draft, state: 'SENT', sentAt: '2030-01-01T00:00:00Z' }, 'changed')).toThrow(expect.objectContaining({ code: 'MESSAGE_SENT', problem: expect.objectContaining({ status: 409 }) }));
    expect(() => assertDraft({ ...draft, state: 'RETRACTED' }, 'changed')).toThrow(expect.objectContaining({ code: 'MESSAGE_RETRACTED', problem: expect.objectContaining({ status: 409 }) }));
  });
});

describe('the recipient bound', () => {
  it('keeps a send of MAX_TRANSACTION_RECIPIENTS within one transaction: message + recipients + audit entry + idempotency record', () => {
    expect(1 + MAX_TRANSACTION_RECIPIENTS + 1 + 1).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
    expect(MAX_RECIPIENTS).toBe(1_000);
  });

  it('keeps an EMPLOYEES audience of MAX_LISTED_EMPLOYEES with the longest body within the 64 KB request body', () => {
    const body = JSON.stringify({ subject: 'x'.repeat(200), body: '\u20ac'.repeat(10_000), audience: { type: 'EMPLOYEES', employeeIds: Array(MAX_LISTED_EMPLOYEES).fill('1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501') } });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(64 * 1024);
    expect(MAX_LISTED_EMPLOYEES).toBeLessThanOrEqual(MAX_RECIPIENTS);
  });

  it('refuses nobody and more than MAX_RECIPIENTS with 422', () => {
    expect(() => assertRecipientCount('m', 0)).toThrow(expect.objectContaining({ code: 'MESSAGE_NO_RECIPIENTS', problem: expect.objectContaining({ status: 422 }) }));
    expect(() => assertRecipientCount('m', 1)).not.toThrow();
    expect(() => assertRecipientCount('m', MAX_RECIPIENTS)).not.toThrow();
    expect(() => assertRecipientCount('m', MAX_RECIPIENTS + 1)).toThrow(expect.objectContaining({ code: 'MESSAGE_TOO_MANY_RECIPIENTS', problem: expect.objectContaining({ status: 422 }) }));
  });
});

describe('read times', () => {
  const sentAt = '2030-01-01T10:00:00.000Z';
  const now = new Date('2030-01-01T12:00:00.000Z');
  it('defaults to now, accepts a time between the send and now (+5 min skew), refuses others at /readAt', () => {
    expect(readInstant(sentAt, now)).toBe(now.toISOString());
    expect(readInstant(sentAt, now, '2030-01-01T11:00:00.000Z')).toBe('2030-01-01T11:00:00.000Z');
    expect(readInstant(sentAt, now, '2030-01-01T12:04:00.000Z')).toBe('2030-01-01T12:04:00.000Z');
    expect(() => readInstant(sentAt, now, '2030-01-01T12:06:00.000Z')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(() => readInstant(sentAt, now, '2030-01-01T09:59:59.000Z')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});

describe('audiences', () => {
  it('keeps explicit employees once each, in the order given', () => {
    expect(normalizeAudience({ type: 'EMPLOYEES', employeeIds: ['b', 'a', 'b'] })).toEqual({ type: 'EMPLOYEES', employeeIds: ['b', 'a'] });
    expect(normalizeAudience({ type: 'EVERYONE' })).toEqual({ type: 'EVERYONE' });
  });

  it(`makes a team window of ${TEAM_DAYS} days either side of the send`, () => {
    expect(teamWindow(new Date('2030-01-15T12:00:00.000Z'))).toEqual({ from: '2030-01-01T12:00:00.000Z', to: '2030-01-29T12:00:00.000Z' });
  });

  it('resolves each audience through the store: active employees only, sorted, no repeats; everyone read to one past the bound', async () => {
    const asked: unknown[] = [];
    const store = {
      activeEmployees: async (_org: string, ids: readonly string[]) => ids.filter((id) => id !== 'inactive'),
      everyActiveEmployee: async (_org: string, max: number) => {
        asked.push(max);
        return ['z', 'y'];
      },
      scheduledAt: async (_org: string, locationId: string, from: string, to: string) => {
        asked.push([locationId, from, to]);
        return ['c', 'a', 'inactive', 'a'];
      },
    } as unknown as MessagesStore;
    const at = new Date('2030-01-15T12:00:00.000Z');
    expect(await resolveAudience(store, 'o', { type: 'EMPLOYEES', employeeIds: ['b', 'inactive', 'a'] }, at)).toEqual(['a', 'b']);
    expect(await resolveAudience(store, 'o', { type: 'LOCATION', locationId: 'l' }, at)).toEqual(['a', 'c']);
    expect(await resolveAudience(store, 'o', { type: 'EVERYONE' }, at)).toEqual(['y', 'z']);
    expect(asked).toEqual([['l', '2030-01-01T12:00:00.000Z', '2030-01-29T12:00:00.000Z'], MAX_RECIPIENTS + 1]);
  });
});

describe('input shapes', () => {
  const employee = '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501';
  it('accepts the three audiences and refuses unknown ones, empty or oversized employee lists and extra members', () => {
    expect(createMessageBody.safeParse({ subject: ' Hi ', body: 'x', audience: { type: 'EVERYONE' } }).data).toEqual({ subject: 'Hi', body: 'x', audience: { type: 'EVERYONE' } });
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'LOCATION', locationId: employee.toUpperCase() } }).data?.audience).toEqual({ type: 'LOCATION', locationId: employee });
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'EMPLOYEES', employeeIds: [employee] } }).success).toBe(true);
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'EMPLOYEES', employeeIds: [] } }).success).toBe(false);
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'EMPLOYEES', employeeIds: Array(MAX_LISTED_EMPLOYEES).fill(employee) } }).success).toBe(true);
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'EMPLOYEES', employeeIds: Array(MAX_LISTED_EMPLOYEES + 1).fill(employee) } }).success).toBe(false);
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'EVERYONE', locationId: employee } }).success).toBe(false);
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'TEAM' } }).success).toBe(false);
    expect(createMessageBody.safeParse({ subject: 'x'.repeat(201), body: 'x', audience: { type: 'EVERYONE' } }).success).toBe(false);
    expect(createMessageBody.safeParse({ subject: 'Hi', body: 'x', audience: { type: 'EVERYONE' }, state: 'SENT' }).success).toBe(false);
  });

  it('needs something to change in a PATCH; parses list filters and read times', () => {
    expect(updateMessageBody.safeParse({}).success).toBe(false);
    expect(updateMessageBody.safeParse({ body: 'new' }).success).toBe(true);
    expect(messageListQuery.safeParse({ state: 'SENT', employeeId: employee, limit: '10' }).data).toEqual({ state: 'SENT', employeeId: employee, limit: 10 });
    expect(messageListQuery.safeParse({ state: 'sent' }).success).toBe(false);
    expect(markReadBody.safeParse({ readAt: '2030-01-01T10:00:00+01:00' }).data).toEqual({ readAt: '2030-01-01T09:00:00.000Z' });
    expect(markReadBody.safeParse({ readAt: 'yesterday' }).success).toBe(false);
  });
});
