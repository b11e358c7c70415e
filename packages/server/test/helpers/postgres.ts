// The throwaway PostgreSQL cluster of the tests (and the benches): `src/demo/postgres.ts`.
export { type PgCluster, pgBinDir, startPostgres } from '../../src/demo/postgres.js';
