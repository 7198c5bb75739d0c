/**
 * The layouts src/layouts/index.ts registers at start-up, in its order, so
 * help text can name them without loading a layout (a unit test keeps the
 * two lists the same).
 */
export const BUILTIN_LAYOUT_NAMES: readonly string[] = ['stoplight-v5', 'stoplight-v6', 'sliding-log', 'ring', 'packed', 'coarse', 'two-window'];

/** Those of {@link BUILTIN_LAYOUT_NAMES} that `bench` runs when `--layout` is not given (src/layouts/index.ts marks them `byDefault`). */
export const BUILTIN_DEFAULT_LAYOUT_NAMES: readonly string[] = ['stoplight-v5', 'stoplight-v6'];
