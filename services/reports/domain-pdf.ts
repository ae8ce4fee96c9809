import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';

/**
 * Exports as printed pages, made with pdf-lib: A4 landscape, an embedded subset of a Unicode
 * TrueType font (DejaVu Sans: Ångström, Łukasz, Øre), the page header and the table header
 * repeated on every page, a trace line (manifest, content hash, generated-at) and "Page n of N"
 * on every page. Only the report worker's bundle loads this file (and pdf-lib, fontkit).
 */

/** The font files (TrueType), read by the worker's adapter (store-fonts.ts). */
export interface PdfFonts {
  readonly regular: Uint8Array;
  readonly bold: Uint8Array;
}

export interface PdfColumn {
  readonly header: string;
  readonly width: number;
  readonly align?: 'left' | 'right';
}

export interface PdfRow {
  readonly cells: readonly string[];
  /** `subtotal`: bold on a light band; `total`: bold on a darker band with a rule above. */
  readonly style?: 'subtotal' | 'total';
}

/** One table with its heading; `newPage` starts it on a fresh page (one page per employee). */
export interface PdfSection {
  readonly heading: readonly string[];
  readonly columns: readonly PdfColumn[];
  readonly rows: readonly PdfRow[];
  readonly newPage?: boolean;
  /** Text when there are no rows. */
  readonly empty?: string;
  /** Signature lines under the table (the monthly report's confirmation). */
  readonly signatures?: readonly string[];
  /** Row height in points (a month on one page needs 9.5). @default 12.5 */
  readonly lineHeight?: number;
}

export interface PdfDocumentModel {
  /** The document title (metadata and the first header line). */
  readonly title: string;
  /** Lines under the title on every page: organization, period, time zone. */
  readonly header: readonly string[];
  /** The trace on every page's foot: manifest id, content hash, generated-at. */
  readonly trace: string;
  readonly sections: readonly PdfSection[];
  readonly createdAt: string;
}

const PAGE: [number, number] = [841.89, 595.28];
const MARGIN = 36;
const LINE = 12.5;
const SIZE = 8;
const FOOT = MARGIN + 14;
const GREY = rgb(0.35, 0.35, 0.35);

export async function renderPdf(model: PdfDocumentModel, fonts: PdfFonts): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  doc.setTitle(model.title);
  doc.setProducer('wfm-organization-api');
  doc.setCreator('wfm-organization-api report worker');
  doc.setCreationDate(new Date(model.createdAt));
  doc.setModificationDate(new Date(model.createdAt));
  const font = await doc.embedFont(fonts.regular, { subset: true });
  const bold = await doc.embedFont(fonts.bold, { subset: true });

  let page: PDFPage | undefined;
  let y = 0;
  const newPage = () => {
    page = doc.addPage(PAGE);
    y = PAGE[1] - MARGIN;
    page.drawText(fit(bold, model.title, PAGE[0] - 2 * MARGIN, 13), { x: MARGIN, y: y - 4, size: 13, font: bold });
    y -= 20;
    for (const line of model.header) {
      page.drawText(fit(font, line, PAGE[0] - 2 * MARGIN, 8.5), { x: MARGIN, y, size: 8.5, font, color: GREY });
      y -= 11;
    }
    y -= 6;
    return page;
  };

  for (const section of model.sections) {
    const lh = section.lineHeight ?? LINE;
    if (!page || section.newPage || y - 4 * LINE < FOOT) newPage();
    else y -= 10;
    const heading = (continued: boolean) => {
      section.heading.forEach((line, i) => {
        const text = i === 0 && continued ? `${line} (continued)` : line;
        page!.drawText(fit(i === 0 ? bold : font, text, PAGE[0] - 2 * MARGIN, i === 0 ? 10.5 : 8.5), { x: MARGIN, y, size: i === 0 ? 10.5 : 8.5, font: i === 0 ? bold : font });
        y -= i === 0 ? 14 : 11;
      });
      drawHeaderRow(page!, bold, section.columns, y, lh);
      y -= lh;
    };
    heading(false);
    if (section.rows.length === 0 && section.empty) {
      page!.drawText(section.empty, { x: MARGIN, y, size: SIZE, font });
      y -= lh;
    }
    for (const row of section.rows) {
      if (y < FOOT + lh) {
        newPage();
        heading(true);
      }
      drawRow(page!, row.style ? bold : font, row, section.columns, y, lh);
      y -= lh;
    }
    if (section.signatures && section.signatures.length > 0) {
      if (y - 52 < FOOT) {
        newPage();
        section.heading.slice(0, 1).forEach((line) => {
          page!.drawText(`${line} (continued)`, { x: MARGIN, y, size: 10.5, font: bold });
          y -= 14;
        });
      }
      y -= 28;
      const width = (PAGE[0] - 2 * MARGIN - 40 * (section.signatures.length - 1)) / section.signatures.length;
      section.signatures.forEach((label, i) => {
        const x = MARGIN + i * (width + 40);
        page!.drawLine({ start: { x, y }, end: { x: x + width, y }, thickness: 0.6, color: rgb(0, 0, 0) });
        page!.drawText(fit(font, label, width, SIZE), { x, y: y - 10, size: SIZE, font, color: GREY });
      });
      y -= 24;
    }
  }
  if (!page) newPage();

  const pages = doc.getPages();
  pages.forEach((p, i) => {
    const number = `Page ${i + 1} of ${pages.length}`;
    const numberWidth = font.widthOfTextAtSize(number, 7.5);
    const traceSize = 7;
    p.drawLine({ start: { x: MARGIN, y: MARGIN + 9 }, end: { x: PAGE[0] - MARGIN, y: MARGIN + 9 }, thickness: 0.4, color: GREY });
    p.drawText(fit(font, model.trace, PAGE[0] - 2 * MARGIN - numberWidth - 16, traceSize), { x: MARGIN, y: MARGIN, size: traceSize, font, color: GREY });
    p.drawText(number, { x: PAGE[0] - MARGIN - numberWidth, y: MARGIN, size: 7.5, font });
  });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

function drawHeaderRow(page: PDFPage, bold: PDFFont, columns: readonly PdfColumn[], y: number, lh: number) {
  const width = columns.reduce((sum, c) => sum + c.width, 0);
  page.drawRectangle({ x: MARGIN - 2, y: y - (lh - 5.5) / 2 - 1, width: width + 4, height: lh, color: rgb(0.88, 0.9, 0.94) });
  drawCells(page, bold, columns.map((c) => c.header), columns, y);
}

function drawRow(page: PDFPage, font: PDFFont, row: PdfRow, columns: readonly PdfColumn[], y: number, lh: number) {
  const width = columns.reduce((sum, c) => sum + c.width, 0);
  const bottom = y - (lh - 5.5) / 2 - 1;
  if (row.style) page.drawRectangle({ x: MARGIN - 2, y: bottom, width: width + 4, height: lh, color: row.style === 'total' ? rgb(0.85, 0.85, 0.85) : rgb(0.95, 0.95, 0.95) });
  if (row.style === 'total') page.drawLine({ start: { x: MARGIN - 2, y: bottom + lh }, end: { x: MARGIN + width + 2, y: bottom + lh }, thickness: 0.6, color: rgb(0, 0, 0) });
  drawCells(page, font, row.cells, columns, y);
}

function drawCells(page: PDFPage, font: PDFFont, cells: readonly string[], columns: readonly PdfColumn[], y: number) {
  let x = MARGIN;
  columns.forEach((c, i) => {
    const text = fit(font, cells[i] ?? '', c.width - 6, SIZE);
    const at = c.align === 'right' ? x + c.width - 6 - font.widthOfTextAtSize(text, SIZE) : x;
    page.drawText(text, { x: at, y, size: SIZE, font });
    x += c.width;
  });
}

/** The text cut with an ellipsis to fit `width`. */
function fit(font: PDFFont, text: string, width: number, size: number): string {
  if (font.widthOfTextAtSize(text, size) <= width) return text;
  let cut = text;
  while (cut.length > 1 && font.widthOfTextAtSize(`${cut}…`, size) > width) cut = cut.slice(0, -1);
  return `${cut}…`;
}
