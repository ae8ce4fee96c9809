import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { startDynamoDbLocal } from '../../services/local/dynamodb';

/**
 * Starting DynamoDB Local (npm start, every test run): a start that fails says why and leaves
 * no Java process behind; a start on a picked port (port 0) survives a port taken meanwhile.
 */
function javaOnPort(port: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.some((a) => a.includes('DynamoDBLocal')) && args.includes(String(port))) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

function occupy(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, '0.0.0.0', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe('startDynamoDbLocal', () => {
  it('refuses a named port that is taken, says so, and leaves no Java behind', async () => {
    const { server, port } = await occupy();
    try {
      await expect(startDynamoDbLocal({ port, startTimeoutMs: 30_000 })).rejects.toThrow(/exited \(code \d+\) before it was ready[\s\S]*bind/i);
      expect(javaOnPort(port)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('on a picked port answers, and stop() ends its Java process', async () => {
    const ddb = await startDynamoDbLocal({ port: 0 });
    const port = Number(new URL(ddb.endpoint).port);
    expect(javaOnPort(port)).toEqual([ddb.pid]);
    await ddb.stop();
    expect(javaOnPort(port)).toEqual([]);
  });
});
