import { packageBuild } from '../../tsup.shared.ts';

export default packageBuild({
  entry: ['src/index.ts', 'src/node.ts', 'src/worker.ts'],
  dtsEntry: ['src/index.ts', 'src/node.ts'],
  bundlesConfigText: true,
  external: [/^node:/],
});
