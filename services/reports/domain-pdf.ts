import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

/**
 * A timesheet as a PDF table (A4 landscape), made with pdf-lib. The standard Helvetica font
 * encodes WinAnsi only: other characters are reduced to their base letter, or '?'.
 */
export interface PdfTable {
  readonly title: string;
  readonly subtitle: string;
  readonly columns: readonly { readonly header: string; readonly width: number }[];
  readonly rows: readonly (readonly string[])[];
}

const PAGE: [number, number] = [841.89, 595.28];
const MARGIN = 36;
const LINE = 14;

export async function renderPdfTable(table: PdfTable, createdAt: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(winAnsi(table.title));
  doc.setProducer('wfm-organization-api');
  doc.setCreationDate(new Date(createdAt));
  doc.setModificationDate(new Date(createdAt));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);

  let page = doc.addPage(PAGE);
  let y = PAGE[1] - MARGIN;
  const header = () => {
    let x = MARGIN;
    for (const c of table.columns) {
      page.drawText(winAnsi(c.header), { x, y, size: 8, font: bold });
      x += c.width;
    }
    y -= LINE;
  };
  page.drawText(winAnsi(table.title), { x: MARGIN, y, size: 14, font: bold });
  y -= 18;
  page.drawText(winAnsi(table.subtitle), { x: MARGIN, y, size: 9, font, color: rgb(0.3, 0.3, 0.3) });
  y -= 22;
  header();
  for (const row of table.rows) {
    if (y < MARGIN) {
      page = doc.addPage(PAGE);
      y = PAGE[1] - MARGIN;
      header();
    }
    drawRow(page, font, row, table.columns, y);
    y -= LINE;
  }
  if (table.rows.length === 0) page.drawText('No entries in this period and scope.', { x: MARGIN, y, size: 9, font });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

function drawRow(page: PDFPage, font: PDFFont, row: readonly string[], columns: PdfTable['columns'], y: number) {
  let x = MARGIN;
  row.forEach((cell, i) => {
    page.drawText(fit(font, winAnsi(cell), columns[i].width - 4, 8), { x, y, size: 8, font });
    x += columns[i].width;
  });
}

function fit(font: PDFFont, text: string, width: number, size: number): string {
  if (font.widthOfTextAtSize(text, size) <= width) return text;
  let cut = text;
  while (cut.length > 1 && font.widthOfTextAtSize(`${cut}...`, size) > width) cut = cut.slice(0, -1);
  return `${cut}...`;
}

/** Characters Helvetica (WinAnsi) can draw: printable ASCII and Latin-1; others reduced. */
export function winAnsi(text: string): string {
  return Array.from(text.normalize('NFC'), (ch) => {
    const code = ch.codePointAt(0)!;
    if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff)) return ch;
    const base = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
    if (base === 'ł' || base === 'Ł') return base === 'ł' ? 'l' : 'L';
    return /^[\x20-\x7e]$/.test(base) ? base : '?';
  }).join('');
}
