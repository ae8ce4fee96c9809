// Imported first by bench/run.ts: module-scope loggers read their level when first imported.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.AWS_REGION ??= 'eu-central-1';
export {};
