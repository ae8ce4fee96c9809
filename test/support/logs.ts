import { logger } from '../../services/shared/logger';

/**
 * Runs `work` with the logger at DEBUG and everything written to stdout and stderr captured
 * (not printed), then puts both back: for tests that assert what the logs never hold.
 */
export async function withCapturedLogs<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly logs: string }> {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
  logger.setLogLevel('DEBUG');
  try {
    const result = await work();
    return { result, logs: lines.join('') };
  } finally {
    logger.setLogLevel('SILENT');
    for (const spy of spies) spy.mockRestore();
  }
}
