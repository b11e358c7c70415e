import { packageBuild } from '../../tsup.shared.ts';

export default packageBuild({ platform: 'node', bundlesConfigText: true });
