import { packageBuild } from '../../tsup.shared.ts';

export default packageBuild({
  entry: ['src/index.ts', 'src/node.ts', 'src/internal/index.ts'],
  external: [/^node:/],
});
