import * as z from 'zod';
import { createFeedbackBody } from '../../services/customers/schemas';
import { templateItemBody } from '../../services/quality/schemas';
import { ValidationError, type FieldError } from '../../services/shared/errors';
import { givenOf, parseInput } from '../../services/shared/http/validation';

/**
 * How a zod issue becomes an `errors[]` detail (services/shared/http/validation.ts): "Required"
 * only for an absent member; a value given of the wrong type is named with what was expected
 * and what was given, short.
 */
const errorsOf = (schema: z.ZodType, value: unknown, location: 'body' | 'query' = 'body'): readonly FieldError[] => {
  try {
    parseInput(schema, value, location);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors ?? [];
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('type details', () => {
  const plain = z.object({ n: z.number(), i: z.number().int().optional(), s: z.string().optional(), b: z.boolean().optional(), o: z.object({}).optional(), a: z.array(z.string()).optional() }).strict();

  it('says Required only for an absent member', () => {
    expect(errorsOf(plain, {})).toEqual([{ pointer: '/n', detail: 'Required: expected a number.' }]);
  });

  it.each([
    ['a whole number given a fraction', { n: 1, i: 4.5 }, '/i', 'Expected a whole number, got the number 4.5.'],
    ['a number given a string', { n: '4' }, '/n', 'Expected a number, got a string of 1 character.'],
    ['a number given null', { n: null }, '/n', 'Expected a number, got null.'],
    ['a string given a number', { n: 1, s: 7 }, '/s', 'Expected a string, got a number.'],
    ['a boolean given a string', { n: 1, b: 'true' }, '/b', 'Expected true or false, got a string of 4 characters.'],
    ['an object given an array', { n: 1, o: [1, 2] }, '/o', 'Expected an object, got an array.'],
    ['an array given an object', { n: 1, a: { x: 'secret' } }, '/a', 'Expected an array, got an object.'],
    ['a number that overflowed to Infinity (1e400)', { n: JSON.parse('1e400') }, '/n', 'Expected a finite number, got a number too large to represent (beyond ±1.8e308, it reads as Infinity).'],
    ['a number that overflowed to -Infinity (-1e400)', { n: JSON.parse('-1e400') }, '/n', 'Expected a finite number, got a number too large to represent (beyond ±1.8e308, it reads as -Infinity).'],
  ])('names what was given: %s', (_label, body, pointer, detail) => {
    expect(errorsOf(plain, body)).toEqual([{ pointer, detail }]);
  });

  it("keeps the schema's own message and adds what was given", () => {
    expect(errorsOf(createFeedbackBody.pick({ rating: true }), { rating: 4.5 })).toEqual([{ pointer: '/rating', detail: 'rating must be a whole number from 1 to 5; got the number 4.5.' }]);
    expect(errorsOf(createFeedbackBody.pick({ rating: true }), { rating: '4' })).toEqual([{ pointer: '/rating', detail: 'rating must be a whole number from 1 to 5; got a string of 1 character.' }]);
    expect(errorsOf(templateItemBody.pick({ weight: true }), { weight: '1' })).toEqual([{ pointer: '/weight', detail: 'weight must be a number; got a string of 1 character.' }]);
    expect(errorsOf(createFeedbackBody.pick({ rating: true }), {})).toEqual([{ pointer: '/rating', detail: 'rating must be a whole number from 1 to 5.' }]);
  });

  it('rewords a schema\'s "is required" message for a value that was given', () => {
    const body = z.object({ reason: z.string({ error: 'reason is required: say why.' }), secret: z.string({ error: 'secret is required.' }).optional() }).strict();
    expect(errorsOf(body, {})).toEqual([{ pointer: '/reason', detail: 'reason is required: say why.' }]);
    expect(errorsOf(body, { reason: 3, secret: false })).toEqual([
      { pointer: '/reason', detail: 'reason must be a string (say why); got a number.' },
      { pointer: '/secret', detail: 'secret must be a string; got false.' },
    ]);
  });

  it('never says Required for a value that was given', () => {
    const body = z.object({ a: z.string({ error: 'a: Required, really.' }), b: z.number() }).strict();
    for (const value of [0, '', null, false, [], {}, 'x', 1.5]) {
      for (const error of errorsOf(body, { a: value === '' ? 1 : value, b: value === 0 ? 'x' : value })) expect(error.detail).not.toMatch(/required/i);
    }
  });

  it('names query parameters the same way', () => {
    expect(errorsOf(z.object({ limit: z.number() }).strict(), { limit: 'ten' }, 'query')).toEqual([{ parameter: 'limit', detail: 'Expected a number, got a string of 3 characters.' }]);
  });
});

describe('givenOf: what a detail says of the value given', () => {
  it("never echoes a string's contents (it may be personal, bank or location data): its length in characters", () => {
    expect(givenOf('DE89370400440532013000')).toBe('a string of 22 characters');
    expect(givenOf('😀'.repeat(21))).toBe('a string of 21 characters');
    expect(givenOf('4')).toBe('a string of 1 character');
    expect(givenOf('')).toBe('an empty string');
  });

  it('echoes a number only for a number field; a number sent for a text field is named, not shown', () => {
    expect(givenOf(4.5, 'int')).toBe('the number 4.5');
    expect(givenOf(123456789, 'string')).toBe('a number');
    expect(givenOf(123456789)).toBe('a number');
  });

  it('never echoes the contents of arrays or objects', () => {
    expect(givenOf(['Ada Lindqvist'])).toBe('an array');
    expect(givenOf({ name: 'Ada Lindqvist' })).toBe('an object');
  });
});
