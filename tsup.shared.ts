import { defineConfig, type Options } from 'tsup';

/** What a package's build states beyond the shared defaults. */
interface PackageBuild {
  /** The entry points (default `src/index.ts`). */
  readonly entry?: string[];
  /** `neutral` (default: the portable packages) or `node`. */
  readonly platform?: 'neutral' | 'node';
  /** Entries whose declarations are written (default: every entry). */
  readonly dtsEntry?: string[];
  /**
   * Bundle `@wai-steering/config-text`, the private package of the layers, into the build (its
   * code and its types): a package that uses it lists it under `devDependencies` only, so that its
   * published tarball depends on nothing unpublished.
   */
  readonly bundlesConfigText?: boolean;
  readonly external?: Options['external'];
}

/**
 * The build every package of the repository shares (ES modules, declarations, source maps, ES2022
 * or Node 20), with what a package states of its own.
 */
export function packageBuild(b: PackageBuild = {}) {
  const platform = b.platform ?? 'neutral';
  const resolve = b.bundlesConfigText === true ? { resolve: ['@wai-steering/config-text'] } : {};
  const dts =
    b.dtsEntry === undefined && b.bundlesConfigText !== true
      ? true
      : { ...(b.dtsEntry === undefined ? {} : { entry: b.dtsEntry }), ...resolve };
  return defineConfig({
    entry: b.entry ?? ['src/index.ts'],
    format: ['esm'],
    dts,
    clean: true,
    sourcemap: true,
    target: platform === 'node' ? 'node20' : 'es2022',
    platform,
    ...(b.bundlesConfigText === true ? { noExternal: ['@wai-steering/config-text'] } : {}),
    ...(b.external === undefined ? {} : { external: b.external }),
  });
}
