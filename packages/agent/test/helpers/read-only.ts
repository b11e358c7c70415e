/**
 * Makes a directory tree unwritable for the agent, for a while, as an operator's mistake or a
 * file system remounted read-only would: for an unprivileged user by its mode (0555, so writes
 * fail with EACCES); for root, whom modes do not stop, by a read-only bind mount over it (EROFS),
 * or where mounts are not allowed by the immutable attribute (EPERM). Each returns a function
 * that makes it writable again.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function dirsOf(root: string): string[] {
  const out = [root];
  for (const n of readdirSync(root)) {
    const p = join(root, n);
    if (statSync(p).isDirectory()) out.push(...dirsOf(p));
  }
  return out;
}

function run(cmd: string, args: readonly string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** How {@link makeUnwritable} made it so: what the agent's writes then fail with. */
export type Unwritable = { readonly code: 'EACCES' | 'EROFS' | 'EPERM'; restore(): void };

function readOnlyMount(root: string): Unwritable | undefined {
  if (!run('mount', ['--bind', root, root])) return undefined;
  if (!run('mount', ['-o', 'remount,bind,ro', root])) {
    run('umount', [root]);
    return undefined;
  }
  return {
    code: 'EROFS',
    restore: () => {
      if (!run('umount', [root])) throw new Error(`cannot unmount ${root}`);
    },
  };
}

function immutable(dirs: readonly string[]): Unwritable | undefined {
  if (!run('chattr', ['+i', ...dirs])) return undefined;
  return {
    code: 'EPERM',
    restore: () => {
      if (!run('chattr', ['-i', ...dirs])) throw new Error(`cannot clear +i on ${dirs[0]}`);
    },
  };
}

/** Makes `root` and every directory under it unwritable; see the module's comment. */
export function makeUnwritable(root: string, prefer: 'EROFS' | 'EPERM' = 'EROFS'): Unwritable {
  const dirs = dirsOf(root);
  if (process.getuid?.() !== 0) {
    for (const d of dirs) chmodSync(d, 0o555);
    return {
      code: 'EACCES',
      restore: () => {
        for (const d of dirs) chmodSync(d, 0o755);
      },
    };
  }
  const made =
    prefer === 'EROFS'
      ? (readOnlyMount(root) ?? immutable(dirs))
      : (immutable(dirs) ?? readOnlyMount(root));
  if (made === undefined) {
    throw new Error(
      `cannot make ${root} unwritable as root: neither a read-only bind mount (CAP_SYS_ADMIN) nor the immutable attribute (CAP_LINUX_IMMUTABLE) is allowed here`,
    );
  }
  return made;
}
