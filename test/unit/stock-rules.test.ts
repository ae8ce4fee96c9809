import { assertStockRule, fromMilli, toMilli } from '../../services/materials/domain';
import { createAdjustmentBody, materialResponse } from '../../services/materials/schemas';
import { AppError } from '../../services/shared/errors';

const LOC = '11111111-1111-4111-8111-111111111111';
const MAT = '22222222-2222-4222-8222-222222222222';

describe('assertStockRule', () => {
  it('accepts decreases that keep the stock at or above zero', () => {
    expect(() => assertStockRule(3000, -3000, undefined)).not.toThrow();
    expect(() => assertStockRule(3000, -1000, undefined)).not.toThrow();
  });

  it('refuses a decrease below zero without a reason, pointing at /quantityChange with both stocks', () => {
    let error: unknown;
    try {
      assertStockRule(3000, -5000, undefined);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/quantityChange', detail: expect.stringContaining('-2') }], extensions: { currentStock: 3, resultingStock: -2 } });
  });

  it('accepts a decrease below zero that says why', () => {
    expect(() => assertStockRule(0, -1000, 'Delivery not booked yet')).not.toThrow();
  });

  it('accepts every increase, also one that leaves the stock negative', () => {
    expect(() => assertStockRule(-5000, 1000, undefined)).not.toThrow();
  });

  it('refuses a further decrease of a negative stock without a reason', () => {
    expect(() => assertStockRule(-5000, -1, undefined)).toThrow(AppError);
  });
});

describe('quantities in milli-units', () => {
  it('add decimals exactly where floating point would not', () => {
    let milli = 0;
    for (let i = 0; i < 10; i += 1) milli += toMilli(0.1);
    expect(fromMilli(milli)).toBe(1);
    expect(toMilli(0.1) + toMilli(0.2)).toBe(toMilli(0.3));
    expect(toMilli(-12.345)).toBe(-12345);
  });
});

describe('createAdjustmentBody', () => {
  const parse = (over: Record<string, unknown>) => createAdjustmentBody.safeParse({ locationId: LOC, materialId: MAT, quantityChange: 1, reason: 'Delivery', ...over });
  const pathsOf = (over: Record<string, unknown>) => parse(over).error?.issues.map((i) => i.path.join('/'));

  it('accepts up to 3 decimals, refuses more, zero and sizes beyond 10^9', () => {
    expect(parse({ quantityChange: 0.125 }).success).toBe(true);
    expect(parse({ quantityChange: -1e9 }).success).toBe(true);
    expect(pathsOf({ quantityChange: 0.1255 })).toEqual(['quantityChange']);
    expect(pathsOf({ quantityChange: 0 })).toEqual(['quantityChange']);
    expect(pathsOf({ quantityChange: 1e9 + 1 })).toEqual(['quantityChange']);
    expect(pathsOf({ quantityChange: '3' })).toEqual(['quantityChange']);
  });

  it('needs a non-empty reason, and a non-empty negativeStockReason when one is sent', () => {
    expect(pathsOf({ reason: '  ' })).toEqual(['reason']);
    expect(pathsOf({ negativeStockReason: '' })).toEqual(['negativeStockReason']);
  });
});

describe('materialResponse', () => {
  it('always carries article, supplier, website and orderLink, null when empty', () => {
    const body = materialResponse({
      id: MAT,
      organizationId: LOC,
      name: 'Bare',
      article: null,
      supplier: null,
      website: null,
      orderLink: null,
      unit: null,
      preferredOrderQuantityMilli: null,
      reorderLevelMilli: 2500,
      archived: false,
      archivedAt: null,
      version: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(body).toMatchObject({ article: null, supplier: null, website: null, orderLink: null, reorderLevel: 2.5 });
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['article', 'supplier', 'website', 'orderLink']));
  });
});
