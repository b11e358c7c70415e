/**
 * The players page's demo stream, at the demo's start. The console's build makes it with ffmpeg
 * (`packages/console/scripts/stream.mjs`); a build without ffmpeg has none, and a later build is
 * a cache hit that does not make it either. So the demo makes it when it is missing, ffmpeg is
 * there and the console is a checkout's (its script beside its `dist/`), before the server reads
 * the console's files; otherwise it says, in its first lines, that the page has no stream and the
 * one command that gives it one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** What the demo can say of its stream. */
export type DemoStream =
  | { readonly kind: 'ready' }
  | { readonly kind: 'made' }
  | { readonly kind: 'missing'; readonly why: string; readonly fix: string | undefined };

/** Whether `ffmpeg` runs. */
export function hasFfmpeg(command = 'ffmpeg'): boolean {
  try {
    execFileSync(command, ['-hide_banner', '-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function onPath(command: string): boolean {
  const dirs = (process.env.PATH ?? '').split(':').filter((d) => d !== '');
  return dirs.some((d) => existsSync(join(d, command)));
}

/** The command that installs ffmpeg here, as the user would type it. */
export function installFfmpegCommand(root = process.getuid?.() === 0): string {
  const sudo = root ? '' : 'sudo ';
  if (onPath('apt-get')) return `${sudo}apt-get install -y ffmpeg`;
  if (onPath('dnf')) return `${sudo}dnf install -y ffmpeg`;
  if (onPath('brew')) return 'brew install ffmpeg';
  return 'install ffmpeg with your system’s package manager';
}

/**
 * The stream of the console in `dist` (`dist/stream/stream.json`): ready, made now (`make` runs
 * the console's script, ffmpeg present), or missing with the command that fixes it (`again`: how
 * the user starts the demo again).
 */
export function ensureDemoStream(
  dist: string | undefined,
  again: string,
  options: { readonly ffmpeg?: boolean; readonly onMaking?: () => void } = {},
): DemoStream {
  if (dist !== undefined && existsSync(join(dist, 'stream', 'stream.json'))) {
    return { kind: 'ready' };
  }
  const script = dist === undefined ? undefined : join(dist, '..', 'scripts', 'stream.mjs');
  const ffmpeg = options.ffmpeg ?? hasFfmpeg();
  if (script !== undefined && existsSync(script)) {
    if (ffmpeg) {
      options.onMaking?.();
      try {
        execFileSync(process.execPath, [script], { stdio: ['ignore', 'ignore', 'inherit'] });
      } catch {
        // Said below: ffmpeg's own lines are on stderr above.
      }
      if (existsSync(join(dist!, 'stream', 'stream.json'))) return { kind: 'made' };
    }
    const install = installFfmpegCommand();
    return {
      kind: 'missing',
      why: ffmpeg ? 'ffmpeg did not make it (see above)' : 'ffmpeg is not installed',
      fix: install.startsWith('install ') ? `${install}, then ${again}` : `${install} && ${again}`,
    };
  }
  // An installed console (no script beside it) was built without ffmpeg: it cannot be made here.
  return {
    kind: 'missing',
    why: 'this installation was built without ffmpeg',
    fix: undefined,
  };
}
