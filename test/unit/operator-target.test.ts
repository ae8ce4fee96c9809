import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorDb } from '../../services/cli/target';

/** Operator commands find the local API the same way `npm start` places it: .local/, or WFM_LOCAL_DIR. */
describe('operatorDb on the local API', () => {
  const saved = { ...process.env };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfm-target-'));
    delete process.env.TABLE_NAME;
  });
  afterEach(() => {
    process.env = { ...saved };
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads runtime.json from WFM_LOCAL_DIR, as the server started with it wrote it", () => {
    writeFileSync(join(dir, 'runtime.json'), JSON.stringify({ tableName: 'wfm-probe', dynamodbEndpoint: 'http://127.0.0.1:8123' }));
    process.env.WFM_LOCAL_DIR = dir;
    expect(operatorDb()).toMatchObject({ description: 'local table wfm-probe (http://127.0.0.1:8123)', deployed: false });
  });

  it('says where it looked when no local API runs there', () => {
    process.env.WFM_LOCAL_DIR = dir;
    expect(() => operatorDb()).toThrow(`no running local API writes ${join(dir, 'runtime.json')}`);
  });
});
