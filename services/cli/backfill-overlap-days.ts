import { indexEmployeeDays, unindexedGuards } from '../timesheets/public';
import { progress } from './progress';
import { fail, operatorDb } from './target';

const USAGE = `Backfills the employees' day items of time entries (docs/data-model.md), once after deploying them.

  npm run backfill:overlap-days [-- --all]

Guards written before day items keep working: a create for such an employee reads the
timeline window (one more Query). This puts each such employee's day items in step with its
timeline and marks its guard, safe to run while the API serves writes and to run again.
--all reconciles every employee, also those already marked: run it once after a rollout, when
functions of the previous version may have written meanwhile.
Progress goes to stderr; the summary to stdout. Exit 0 when every employee was indexed.`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.length === 1 && ['help', '--help', '-h'].includes(args[0])) {
    console.log(USAGE);
    return;
  }
  const unknown = args.filter((a) => a !== '--all');
  if (unknown.length > 0) {
    console.error(`error: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((a) => `"${a}"`).join(' ')}\n\n${USAGE}`);
    process.exit(2);
  }
  const all = args.includes('--all');
  const { db, description } = operatorDb();
  console.error(`using ${description}`);
  const scanning = progress(all ? 'items scanned for guards' : 'items scanned for unindexed guards');
  const employees = await unindexedGuards(db, (scanned) => scanning.update(scanned), { all });
  scanning.done(`${employees.length} employees to index`);
  const indexing = progress('employees indexed');
  let dayItems = 0;
  let longEntries = 0;
  for (const [i, employee] of employees.entries()) {
    const outcome = await indexEmployeeDays(db, employee, { reconcile: all });
    if (outcome.status === 'indexed') {
      dayItems += outcome.dayItems;
      longEntries += outcome.longEntries;
    }
    indexing.update(i + 1, employees.length, employee.employeeId);
  }
  indexing.done(`${employees.length} employees`);
  console.log(`indexed ${employees.length} employees: ${dayItems} day items written, ${longEntries} long entries on guards`);
}

main().catch((error: unknown) => fail((error as Error).message));
