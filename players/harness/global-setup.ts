// Makes the test stream once, before any test file runs (ffmpeg; cached under players/.media).

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureMedia, MATRIX_MEDIA } from './media.js';

export default async function setup(): Promise<void> {
  for (const [tool, path] of [
    ['chromium', '/usr/bin/chromium'],
    ['ffmpeg', 'ffmpeg'],
  ] as const) {
    try {
      if (path.startsWith('/') ? !existsSync(path) : !execFileSync('which', [path]).length)
        throw new Error('missing');
    } catch {
      throw new Error(`${tool} is not installed: run players/setup.sh (as root) first`);
    }
  }
  for (const spec of [undefined, MATRIX_MEDIA]) {
    const media = await ensureMedia(spec);
    process.stdout.write(`players: media ${media.dir} (${media.segments} segments)\n`);
  }
}
