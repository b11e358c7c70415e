import { SqliteStore } from '../src/store/sqlite.js';
import { tempDir } from './helpers/setup.js';
import { storeContract } from './store-contract.js';

storeContract('SqliteStore', async () => {
  const t = tempDir('wai-sqlite-contract-');
  const path = `${t.dir}/s.sqlite`;
  return {
    store: new SqliteStore(path),
    reopen: async () => new SqliteStore(path),
    dispose: async () => t.remove(),
  };
});
