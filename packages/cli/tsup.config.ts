import { packageBuild } from '../../tsup.shared.ts';

export default packageBuild({
  entry: ['src/main.ts', 'src/index.ts'],
  platform: 'node',
  bundlesConfigText: true,
});
