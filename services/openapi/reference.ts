import { posix } from 'node:path';

/**
 * The API reference page: Redoc's standalone bundle renders the OpenAPI document in the
 * browser. Both are fetched from this API (same origin, no CDN), by URLs relative to the
 * page, so the page works on every host it is served from: the local gateway
 * (`/docs` -> `/v1/openapi.json`), a stage URL (`/v1/docs` -> `/v1/v1/openapi.json`) and a
 * custom domain.
 */
export interface ReferencePageInput {
  readonly title: string;
  /** The page's own path and those of the script and the document (the route table's). */
  readonly pagePath: string;
  readonly scriptPath: string;
  readonly documentPath: string;
}

/** `to` relative to the page at `from` (both absolute resource paths). */
export const relativeTo = (from: string, to: string): string => posix.relative(posix.dirname(from), to);

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function referencePage(input: ReferencePageInput): string {
  const documentUrl = escapeHtml(relativeTo(input.pagePath, input.documentPath));
  const scriptUrl = escapeHtml(relativeTo(input.pagePath, input.scriptPath));
  // Redoc reads its options from the element's attributes; no inline script (see the CSP).
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)} reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This reference needs JavaScript. The OpenAPI document is at <a href="${documentUrl}">${documentUrl}</a>.</noscript>
<redoc spec-url="${documentUrl}" required-props-first="true" expand-responses="200,201,202" json-sample-expand-level="4" hide-download-button="false" path-in-middle-panel="true"></redoc>
<script src="${scriptUrl}"></script>
</body>
</html>
`;
}

/**
 * What the page may load: its own script and document, Redoc's inline styles and its search
 * worker (a blob URL); nothing from another origin, no inline script, no framing.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
