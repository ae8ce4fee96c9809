import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reportsArea } from './area';
import type { PdfFonts } from './domain-pdf';

/**
 * The fonts of printed exports: DejaVu Sans (regular, bold) from the `dejavu-fonts-ttf`
 * package, declared as assets of the `reports-worker` function (area.ts). In Lambda they sit
 * beside the bundle (AreaFunction copies them); locally they are read from node_modules.
 * Read once per process.
 */
export const FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;

const worker = reportsArea.functions?.find((f) => f.name === 'reports-worker');

function fontPath(name: string): string {
  const fromRoot = worker?.assets?.[name];
  if (!fromRoot) throw new Error(`services/reports/area.ts: the reports-worker function declares no asset ${name}.`);
  return process.env.LAMBDA_TASK_ROOT ? join(process.env.LAMBDA_TASK_ROOT, name) : join(process.cwd(), fromRoot);
}

let loaded: Promise<PdfFonts> | undefined;

export function loadFonts(): Promise<PdfFonts> {
  loaded ??= Promise.all([readFile(fontPath(FONT_FILES.regular)), readFile(fontPath(FONT_FILES.bold))]).then(([regular, bold]) => ({ regular, bold }));
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}
