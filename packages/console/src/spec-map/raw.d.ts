/** A text file bundled whole (vite's `?raw`): the map of docs/spec-map.md. */
declare module '*.md?raw' {
  const text: string;
  export default text;
}
