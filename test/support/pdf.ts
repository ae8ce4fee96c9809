import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Reading PDFs as people and machines see them, with Debian's poppler-utils (`pdftotext`,
 * `pdftoppm`; .ci/run installs them): the text of the pages, and the first page as a PNG left
 * in test-output/exports/ for people to look at. Tests that need them skip with a note when
 * the tools are missing.
 */
const PDFTOTEXT = process.env.PDFTOTEXT_PATH ?? '/usr/bin/pdftotext';
const PDFTOPPM = process.env.PDFTOPPM_PATH ?? '/usr/bin/pdftoppm';
export const hasPoppler = existsSync(PDFTOTEXT) && existsSync(PDFTOPPM);
export const PNG_FOLDER = join('test-output', 'exports');

export function warnWithoutPoppler(file: string): void {
  if (!hasPoppler) {
    console.warn(
      `SKIPPED in ${file}: no pdftotext/pdftoppm at ${PDFTOTEXT}, ${PDFTOPPM}, so the PDF text and page images were not checked. ` +
        "Install Debian's poppler-utils (apt-get install poppler-utils; .ci/run does) or set PDFTOTEXT_PATH and PDFTOPPM_PATH.",
    );
  }
}

function withFile<T>(bytes: Buffer, work: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'wfm-pdf-'));
  try {
    const path = join(dir, 'file.pdf');
    writeFileSync(path, bytes);
    return work(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of every page, laid out (`pdftotext -layout`); pages are separated by form feeds. */
export const pdfText = (bytes: Buffer): string => withFile(bytes, (path) => execFileSync(PDFTOTEXT, ['-layout', '-enc', 'UTF-8', path, '-'], { encoding: 'utf8' }));

/** The first page as `test-output/exports/<name>.png` (100 dpi); returns its path. */
export function firstPagePng(bytes: Buffer, name: string): string {
  mkdirSync(PNG_FOLDER, { recursive: true });
  const out = join(PNG_FOLDER, name);
  withFile(bytes, (path) => execFileSync(PDFTOPPM, ['-png', '-r', '100', '-f', '1', '-l', '1', '-singlefile', path, out]));
  return `${out}.png`;
}
