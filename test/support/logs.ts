import { logger } from '../../services/shared/logger';

/**
 * Runs `work` with the logger at DEBUG and everything written to stdout and stderr captured
 * (not printed), then puts both back: for tests that assert what the logs never hold.
 *
 * The level is held at DEBUG for every request `work` makes: Powertools' injectLambdaContext
 * puts the logger back to its configured level (SILENT in tests) at each warm invocation
 * (`refreshSampleRateCalculation`), which would leave every request after the first unlogged
 * and such a test unable to fail.
 */
export async function withCapturedLogs<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly logs: string }> {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(capture),
    jest.spyOn(process.stderr, 'write').mockImplementation(capture),
    jest.spyOn(logger, 'refreshSampleRateCalculation').mockImplementation(() => undefined),
  ];
  logger.setLogLevel('DEBUG');
  try {
    const result = await work();
    return { result, logs: lines.join('') };
  } finally {
    logger.setLogLevel('SILENT');
    for (const spy of spies) spy.mockRestore();
  }
}
