// Defaults for every test file; a test may override them before first use.
process.env.API_ENVIRONMENT ??= 'TEST';
process.env.CURSOR_SECRET ??= 'test-cursor-secret-not-for-production';
process.env.RESTRICTED_DATA_LOCAL_KEY ??= Buffer.alloc(32, 7).toString('base64');
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_REGION ??= 'eu-central-1';
