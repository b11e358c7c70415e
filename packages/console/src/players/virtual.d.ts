/** The player bundles the build copies beside the console (vite.config.ts, `playerBundles`). */
declare module 'virtual:wai-players' {
  const bundled: readonly {
    readonly kind: 'hls.js' | 'dash.js' | 'shaka-player' | 'video.js';
    readonly version: string;
    /** The bundle's URL, relative to the page. */
    readonly url: string;
  }[];
  export default bundled;
}
