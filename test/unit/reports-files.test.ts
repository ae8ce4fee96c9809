import { statSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import { contentHash, renderExport, type ExportContext, type ExportData, type PersonInfo } from '../../services/reports/domain-files';
import { renderPdf } from '../../services/reports/domain-pdf';
import { hoursMinutes, localInstant, localPeriod, zoneLabel } from '../../services/reports/domain-time';
import type { ReportKind } from '../../services/reports/model';
import { loadFonts } from '../../services/reports/store-fonts';
import type { TimeEntry } from '../../services/timesheets/public';
import { firstPagePng, hasPoppler, pdfText, warnWithoutPoppler } from '../support/pdf';

/**
 * Issue 21: every export kind rendered from one fixed data set, read back as a payroll clerk
 * (the PDF's text: local times across the DST change of 29 March 2026 in Europe/Berlin,
 * h:mm totals, names with diacritics, the trace) and as a machine (the CSV cells). The first
 * page of each PDF is left as a PNG in test-output/exports/.
 */
warnWithoutPoppler('test/unit/reports-files.test.ts');

const ORG = 'o1';
const [ANDERS, LUKASZ, SOREN] = ['e1000000-0000-4000-8000-000000000001', 'e2000000-0000-4000-8000-000000000002', 'e3000000-0000-4000-8000-000000000003'];
const LOC = 'l1000000-0000-4000-8000-000000000001';
/** March 2026 as Berlin's local month: [1 March 00:00 +01:00, 1 April 00:00 +02:00). */
const MARCH = { from: '2026-02-28T23:00:00.000Z', to: '2026-03-31T22:00:00.000Z' };

let n = 0;
const entry = (employeeId: string, startedAt: string, endedAt: string, breakMinutes: number, more: Partial<TimeEntry> = {}): TimeEntry => ({
  id: `a${String((n += 1)).padStart(7, '0')}-0000-4000-8000-000000000000`,
  organizationId: ORG,
  employeeId,
  context: { kind: 'REGISTERED_LOCATION', locationId: LOC },
  startedAt,
  endedAt,
  breakMinutes,
  origin: 'SCANNED',
  state: 'CLOSED',
  adjusted: false,
  revision: 1,
  createdAt: startedAt,
  updatedAt: startedAt,
  ...more,
});

const ENTRIES: TimeEntry[] = [
  entry(LUKASZ, '2026-03-27T07:00:00.000Z', '2026-03-27T15:30:00.000Z', 30), // Fri 08:00-16:30 +01:00, 8:00
  entry(LUKASZ, '2026-03-28T21:00:00.000Z', '2026-03-29T05:00:00.000Z', 30), // Sat 22:00 +01:00 -> Sun 07:00 +02:00: 8 h elapsed, 7:30
  entry(LUKASZ, '2026-03-30T06:00:00.000Z', '2026-03-30T14:00:00.000Z', 30, { revision: 2, adjusted: true }), // Mon 08:00-16:00 +02:00, 7:30
  entry(ANDERS, '2026-03-02T12:00:00.000Z', '2026-03-02T16:00:00.000Z', 15), // Mon 13:00-17:00, 3:45
  entry(ANDERS, '2026-03-02T07:00:00.000Z', '2026-03-02T11:15:00.000Z', 0), // Mon 08:00-12:15, 4:15
  entry(SOREN, '2026-03-31T06:00:00.000Z', '2026-03-31T14:45:00.000Z', 45, { origin: 'MANUAL', context: { kind: 'VEHICLE_AD_HOC', addressLabel: 'Fjordgata 5, Ålesund' } }), // 8:00
];

const PEOPLE = new Map<string, PersonInfo>([
  [ANDERS, { displayName: 'Anders Ångström', employeeNumber: 'P-001', externalId: null }],
  [LUKASZ, { displayName: 'Łukasz Żółkiewski', employeeNumber: 'P-002', externalId: 'hr-2' }],
  [SOREN, { displayName: 'Søren Øre', employeeNumber: null, externalId: null }],
]);

const DATA: ExportData = {
  entries: ENTRIES,
  people: PEOPLE,
  locationNames: new Map([[LOC, 'Depot Nord']]),
  planned: new Map([
    [LUKASZ, [
      { locationId: LOC, startsAt: '2026-03-27T07:00:00.000Z', endsAt: '2026-03-27T15:30:00.000Z', breakMinutes: 30 }, // 8:00
      { locationId: LOC, startsAt: '2026-03-30T06:00:00.000Z', endsAt: '2026-03-30T14:00:00.000Z', breakMinutes: 0 }, // 8:00
    ]],
  ]),
};

const CONTEXT: ExportContext = {
  organizationName: 'Nordlicht Pflege GmbH',
  presentation: { timeZone: 'Europe/Berlin', locale: 'de-DE', weekStartsOn: 'MONDAY' },
  manifestId: '0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f',
  generatedAt: '2026-04-01T07:30:00.000Z',
};

const render = (kind: ReportKind, data = DATA, ctx = CONTEXT) => renderExport({ kind, period: MARCH }, data, ctx);
const pdfOf = async (kind: ReportKind, data = DATA, ctx = CONTEXT) => renderPdf(render(kind, data, ctx).pdf!, await loadFonts());

/** CSV rows as cells (no field of the fixture holds a comma except the quoted address). */
function csvRows(bytes: Buffer): Record<string, string>[] {
  const lines = bytes.subarray(3).toString('utf8').split('\r\n').filter((l) => l !== '');
  const split = (line: string) => line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.slice(0, -1).map((c) => c.replace(/,$/, '').replace(/^"(.*)"$/, '$1').replace(/""/g, '"'));
  const [header, ...rows] = lines.map(split);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

describe('local time', () => {
  it('follows Berlin across the change to summer time', () => {
    expect(localInstant('2026-03-28T21:00:00.000Z', 'Europe/Berlin')).toMatchObject({ date: '2026-03-28', time: '22:00', offset: '+01:00' });
    expect(localInstant('2026-03-29T05:00:00.000Z', 'Europe/Berlin')).toMatchObject({ date: '2026-03-29', time: '07:00', offset: '+02:00' });
    expect(localPeriod(MARCH, 'Europe/Berlin')).toMatchObject({ first: '2026-03-01', last: '2026-03-31', whole: true });
    expect(zoneLabel(MARCH, 'Europe/Berlin')).toBe('Europe/Berlin (UTC+01:00 / UTC+02:00)');
    expect(zoneLabel(MARCH, 'UTC')).toBe('UTC (UTC+00:00)');
  });

  it('writes durations as hours:minutes, grouped in the locale', () => {
    expect([hoursMinutes(450), hoursMinutes(5), hoursMinutes(-15), hoursMinutes(74_000, 'de-DE')]).toEqual(['7:30', '0:05', '-0:15', '1.233:20']);
  });
});

describe('TIMESHEET_CSV', () => {
  const rows = csvRows(render('TIMESHEET_CSV').csv!);
  const entries = rows.filter((r) => r.row_type === 'ENTRY');

  it('orders entries by employee, then start, with UTC instants beside the local ones', () => {
    expect(entries.map((r) => [r.employee_name, r.local_started_at])).toEqual([
      ['Anders Ångström', '2026-03-02T08:00:00+01:00'],
      ['Anders Ångström', '2026-03-02T13:00:00+01:00'],
      ['Łukasz Żółkiewski', '2026-03-27T08:00:00+01:00'],
      ['Łukasz Żółkiewski', '2026-03-28T22:00:00+01:00'],
      ['Łukasz Żółkiewski', '2026-03-30T08:00:00+02:00'],
      ['Søren Øre', '2026-03-31T08:00:00+02:00'],
    ]);
    expect(entries[3]).toMatchObject({ started_at: '2026-03-28T21:00:00.000Z', ended_at: '2026-03-29T05:00:00.000Z', local_ended_at: '2026-03-29T07:00:00+02:00', local_date: '2026-03-28', time_zone: 'Europe/Berlin', break_minutes: '30', worked_minutes: '450', worked_hours: '7.5', break_hours: '0.5' });
    expect(entries[4]).toMatchObject({ revision: '2', adjusted: 'true' });
    expect(entries[5]).toMatchObject({ location_or_address: 'Fjordgata 5, Ålesund', origin: 'MANUAL' });
  });

  it('adds totals per employee and day, per employee, per date and a grand total, in machine numbers', () => {
    expect(rows.filter((r) => r.row_type === 'EMPLOYEE_DAY_TOTAL' && r.employee_id === ANDERS)).toEqual([expect.objectContaining({ local_date: '2026-03-02', worked_minutes: '480', worked_hours: '8', break_minutes: '15' })]);
    expect(rows.find((r) => r.row_type === 'EMPLOYEE_TOTAL' && r.employee_id === LUKASZ)).toMatchObject({ worked_minutes: '1380', worked_hours: '23', break_minutes: '90' });
    expect(rows.filter((r) => r.row_type === 'DAY_TOTAL').map((r) => r.local_date)).toEqual(['2026-03-02', '2026-03-27', '2026-03-28', '2026-03-30', '2026-03-31']);
    expect(rows.at(-1)).toMatchObject({ row_type: 'GRAND_TOTAL', worked_minutes: '2340', worked_hours: '39', break_minutes: '150' });
  });
});

describe('PAYROLL_DISPATCH', () => {
  it('keeps minutes per employee and adds the local bounds and decimal hours', () => {
    const rows = csvRows(render('PAYROLL_DISPATCH').csv!);
    expect(rows.find((r) => r.employee_id === LUKASZ)).toMatchObject({ worked_minutes: '1380', worked_hours: '23', time_zone: 'Europe/Berlin', period_first_day: '2026-03-01', period_last_day: '2026-03-31', employee_number: 'P-002', external_id: 'hr-2' });
  });
});

describe('content hash', () => {
  it('changes only with content: not with the manifest id or the generation time, but with a revision', () => {
    const again = { ...CONTEXT, manifestId: 'ffffffff-4f50-4617-8829-3a4b5c6d7e8f', generatedAt: '2026-04-02T09:00:00.000Z' };
    for (const kind of ['TIMESHEET_CSV', 'TIMESHEET_PDF', 'MONTHLY_REPORT', 'PAYROLL_DISPATCH'] as const) {
      expect(contentHash(render(kind, DATA, again).content)).toBe(contentHash(render(kind).content));
    }
    const corrected = { ...DATA, entries: DATA.entries.map((e, i) => (i === 0 ? { ...e, revision: 2, adjusted: true, breakMinutes: 45 } : e)) };
    expect(contentHash(render('TIMESHEET_PDF', corrected).content)).not.toBe(contentHash(render('TIMESHEET_PDF').content));
    expect(contentHash(render('MONTHLY_REPORT', corrected).content)).not.toBe(contentHash(render('MONTHLY_REPORT').content));
  });

  it('is printed on the PDF, with the manifest id', async () => {
    const model = render('TIMESHEET_PDF').pdf!;
    expect(model.trace).toContain(`content ${contentHash(render('TIMESHEET_PDF').content)}`);
    expect(model.trace).toContain(`Manifest ${CONTEXT.manifestId}`);
  });
});

describe('PDFs', () => {
  it('are A4 landscape with the document title', async () => {
    for (const kind of ['TIMESHEET_PDF', 'MONTHLY_REPORT'] as const) {
      const doc = await PDFDocument.load(await pdfOf(kind));
      const { width, height } = doc.getPage(0).getSize();
      expect([Math.round(width), Math.round(height)]).toEqual([842, 595]);
      expect(doc.getTitle()).toMatch(/– Nordlicht Pflege GmbH$/);
    }
  });

  (hasPoppler ? describe : describe.skip)('as a clerk reads them (pdftotext, pdftoppm)', () => {
    it('TIMESHEET_PDF: local times across the DST change, h:mm totals, diacritics, trace and page numbers', async () => {
      const bytes = await pdfOf('TIMESHEET_PDF');
      const text = pdfText(bytes);
      const hash = contentHash(render('TIMESHEET_PDF').content);
      expect(text).toContain('Nordlicht Pflege GmbH · Timesheet · Period 01.03.2026 – 31.03.2026 · Times in Europe/Berlin (UTC+01:00 / UTC+02:00)');
      for (const name of ['Anders Ångström', 'Łukasz Żółkiewski', 'Søren Øre', 'Fjordgata 5, Ålesund']) expect(text).toContain(name);
      // The night shift into summer time: 22:00 on Saturday to 07:00 on Sunday, 7:30 worked.
      expect(text).toMatch(/Łukasz Żółkiewski\s+Sa\., 28\.03\.2026\s+22:00\s+07:00 \(\+1\)\s+0:30\s+7:30/);
      expect(text).toMatch(/Mo\., 30\.03\.2026\s+08:00\s+16:00\s+0:30\s+7:30\s+SCANNED\s+Depot Nord\s+2 adjusted/);
      expect(text).toMatch(/Anders Ångström\s+Mo\., 02\.03\.2026\s+Day total\s+0:15\s+8:00/);
      expect(text).toMatch(/Łukasz Żółkiewski\s+Employee total\s+1:30\s+23:00/);
      expect(text).toMatch(/Grand total\s+3\s+6\s+2:30\s+39:00/);
      expect(text).toContain(`Manifest ${CONTEXT.manifestId} · content ${hash} · generated 01.04.2026, 09:30 UTC+02:00`);
      expect(text).toMatch(/Page 1 of 1/);
      const png = firstPagePng(bytes, 'timesheet-pdf');
      expect(statSync(png).size).toBeGreaterThan(10_000);
    });

    it('TIMESHEET_PDF: repeats the header and the table header on every page, numbered', async () => {
      const many = Array.from({ length: 90 }, (_, i) => entry(ANDERS, new Date(Date.parse('2026-03-01T07:00:00.000Z') + i * 8 * 3_600_000).toISOString(), new Date(Date.parse('2026-03-01T07:00:00.000Z') + i * 8 * 3_600_000 + 4 * 3_600_000).toISOString(), 0));
      const text = pdfText(await pdfOf('TIMESHEET_PDF', { ...DATA, entries: many }));
      const pages = text.split('\f').filter((p) => p.trim() !== '');
      expect(pages.length).toBeGreaterThan(2);
      pages.forEach((page, i) => {
        expect(page).toContain('Nordlicht Pflege GmbH · Timesheet');
        expect(page).toMatch(/Employee\s+Date\s+Start\s+End\s+Break\s+Worked|Date\s+Employees\s+Entries/);
        expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
        expect(page).toContain(CONTEXT.manifestId);
      });
    });

    it('MONTHLY_REPORT: a page per employee, day by day, planned vs actual, weekly subtotals, signatures', async () => {
      const bytes = await pdfOf('MONTHLY_REPORT');
      const pages = pdfText(bytes).split('\f').filter((p) => p.trim() !== '');
      expect(pages).toHaveLength(3);
      expect(pages.map((p) => (p.match(/Anders Ångström|Łukasz Żółkiewski|Søren Øre/) ?? [''])[0])).toEqual(['Anders Ångström', 'Łukasz Żółkiewski', 'Søren Øre']);
      const lukasz = pages[1];
      // Planned 8:00, worked 8:00 on Friday; Saturday's night shift unplanned (+7:30); Monday 8:00 planned, 7:30 worked, corrected.
      expect(lukasz).toMatch(/Fr\., 27\.03\.2026\s+8:00\s+08:00–16:30\s+0:30\s+8:00\s+0:00\s+1/);
      expect(lukasz).toMatch(/Sa\., 28\.03\.2026\s+22:00–07:00\s+0:30\s+7:30\s+\+7:30\s+1/);
      expect(lukasz).toMatch(/Mo\., 30\.03\.2026\s+8:00\s+08:00–16:00\s+0:30\s+7:30\s+-0:30\s+1\s+1 adjusted/);
      // Weeks start on Monday: 23–29 March holds Friday and Saturday.
      expect(lukasz).toMatch(/Week 23\.03\.2026 – 29\.03\.2026\s+8:00\s+1:00\s+15:30\s+\+7:30\s+2/);
      expect(lukasz).toMatch(/Total\s+16:00\s+1:30\s+23:00\s+\+7:00\s+3/);
      expect(lukasz).toContain('Employee: signature and date');
      expect(lukasz).toContain('Supervisor: signature and date');
      expect(lukasz).toMatch(/Page 2 of 3/);
      expect(statSync(firstPagePng(bytes, 'monthly-report')).size).toBeGreaterThan(10_000);
    });

    it('MONTHLY_REPORT: weeks start on the organization’s weekStartsOn', async () => {
      const sunday = { ...CONTEXT, presentation: { ...CONTEXT.presentation, weekStartsOn: 'SUNDAY' as const } };
      const lukasz = pdfText(await pdfOf('MONTHLY_REPORT', DATA, sunday)).split('\f')[1];
      expect(lukasz).toMatch(/Week 22\.03\.2026 – 28\.03\.2026\s+8:00\s+1:00\s+15:30/);
      expect(lukasz).toMatch(/Week 29\.03\.2026 – 31\.03\.2026\s+8:00\s+0:30\s+7:30/);
    });

    it('writes numbers in the locale where people read them', async () => {
      const english = { ...CONTEXT, presentation: { timeZone: 'America/New_York', locale: 'en-US', weekStartsOn: 'SUNDAY' as const } };
      const text = pdfText(await pdfOf('TIMESHEET_PDF', DATA, english));
      // Berlin's month seen from New York: bounds are not local midnights, so they are shown with their times.
      expect(text).toContain('Period 02/28/2026 18:00 – 03/31/2026 18:00 (end exclusive)');
      expect(text).toContain('America/New_York (UTC-05:00 / UTC-04:00)');
      expect(text).toMatch(/Sat, 03\/28\/2026\s+17:00\s+01:00 \(\+1\)/);
    });
  });
});
