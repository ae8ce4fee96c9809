import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Counts what one client sends to DynamoDB: calls per API operation, items (written by a
 * transaction, asked for by a BatchGetItem, returned and scanned by a Query) and the capacity
 * DynamoDB reports when asked with ReturnConsumedCapacity. Installed as an SDK middleware on
 * a client the bench controls (the handlers' process-wide client included), so nothing in
 * services/ changes.
 */
export interface Call {
  readonly operation: string;
  /** Items the call wrote, read or asked for (see above). */
  readonly items: number;
  /** Items DynamoDB examined for a Query (before its filter). */
  readonly scanned: number;
  readonly capacityUnits: number;
}

export interface Meter {
  readonly calls: Call[];
  /** Calls made while `run` ran. */
  during<T>(run: () => Promise<T>): Promise<{ result: T; calls: Call[] }>;
}

const CAPACITY_OPERATIONS = /^(Get|Put|Update|Delete|BatchGet|BatchWrite|TransactWrite|TransactGet|Query|Scan)/;

export function installMeter(doc: DynamoDBDocumentClient, name = 'benchMeter'): Meter {
  const calls: Call[] = [];
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String((context as { commandName?: string }).commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as Record<string, any>;
      if (CAPACITY_OPERATIONS.test(operation) && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
      let out: Awaited<ReturnType<typeof next>>;
      try {
        out = await next(args);
      } catch (error) {
        // A cancelled transaction or failed condition is still a call (and still costs).
        calls.push({ operation, items: itemsOf(operation, input, undefined), scanned: 0, capacityUnits: 0 });
        throw error;
      }
      const output = out.output as Record<string, any> | undefined;
      calls.push({ operation, items: itemsOf(operation, input, output), scanned: Number(output?.ScannedCount ?? 0), capacityUnits: capacityOf(output?.ConsumedCapacity) });
      return out;
    },
    { step: 'initialize', name, priority: 'high', override: true },
  );
  return {
    calls,
    async during(run) {
      const from = calls.length;
      const result = await run();
      return { result, calls: calls.slice(from) };
    },
  };
}

function itemsOf(operation: string, input: Record<string, any>, output: Record<string, any> | undefined): number {
  switch (operation) {
    case 'TransactWriteItems':
    case 'TransactWrite':
      return input.TransactItems?.length ?? 0;
    case 'BatchGetItem':
    case 'BatchGet':
      return Object.values(input.RequestItems ?? {}).reduce((n: number, r: any) => n + (r.Keys?.length ?? 0), 0);
    case 'Query':
    case 'Scan':
      return Number(output?.Count ?? 0);
    default:
      return 1;
  }
}

function capacityOf(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((n: number, c: any) => n + Number(c?.CapacityUnits ?? 0), 0);
}

/** `{ Query: 2, TransactWriteItems: 1 }`-style summary of calls. */
export function callSummary(calls: readonly Call[]) {
  const byOperation: Record<string, number> = {};
  for (const c of calls) byOperation[c.operation] = (byOperation[c.operation] ?? 0) + 1;
  return {
    calls: calls.length,
    byOperation,
    items: calls.reduce((n, c) => n + c.items, 0),
    /** Items of the TransactWriteItems calls: the size of the operation's transaction. */
    transactionItems: calls.filter((c) => /^TransactWrite/.test(c.operation)).reduce((n, c) => n + c.items, 0),
    scannedByQueries: calls.reduce((n, c) => n + c.scanned, 0),
    capacityUnits: Number(calls.reduce((n, c) => n + c.capacityUnits, 0).toFixed(2)),
  };
}
