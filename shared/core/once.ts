/**
 * `create`, called at the first call only; every later call returns what that one did. For a module loaded at its
 * first use (`once(() => import('pkg'))`): the import starts once and every caller awaits the same promise.
 * Mark a module-level call `/* @__PURE__ *\/` so that esbuild drops it, and the `import()` inside, from a bundle
 * that never calls the result.
 */
export function once<T>(create: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: create() }).value;
}
