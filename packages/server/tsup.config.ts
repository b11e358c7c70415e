import { packageBuild } from '../../tsup.shared.ts';

export default packageBuild({
  entry: ['src/index.ts', 'src/testkit.ts'],
  platform: 'node',
  bundlesConfigText: true,
  external: [/^node:/, 'better-sqlite3'],
});
