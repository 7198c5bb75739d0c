/**
 * The layouts src/layouts/index.ts registers at start-up, in its order, so
 * help text can name them without loading a layout (a unit test keeps the
 * two lists the same).
 */
export const BUILTIN_LAYOUT_NAMES: readonly string[] = ['stoplight-v5', 'stoplight-v6', 'sliding-log', 'ring', 'packed', 'coarse', 'two-window'];
