/**
 * What other areas may use of reports' export files (the integrations worker sends them to a
 * provider): apart from public.ts, because it brings the S3 client (loaded on first use, a
 * chunk of its own in the bundle) and most users of the reports port never touch a file.
 */
export { fileStore as exportFileStore } from './store-files';
