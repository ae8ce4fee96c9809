import type { ChildProcess } from 'node:child_process';

/**
 * Stops a child process: SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves
 * once it has exited (at once when it already has).
 */
export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const hard = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
