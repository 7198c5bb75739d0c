import { StoplightV5, type StoplightV5Options } from './stoplight-v5.js';
import { StoplightV6, type StoplightV6Options } from './stoplight-v6.js';
import type { Layout } from './types.js';

/** Options every layout accepts. */
export interface LayoutOptions extends StoplightV5Options, StoplightV6Options {}

/**
 * Every storage design swc knows, by name. Adding a design is adding one
 * module and its Lua, then one line here; `--layout` choices come from this.
 */
export const layouts = {
  'stoplight-v5': (options?: LayoutOptions): Layout => new StoplightV5(options),
  'stoplight-v6': (options?: LayoutOptions): Layout => new StoplightV6(options),
} as const;

export type LayoutName = keyof typeof layouts;

/** Registered layout names, in registry order. */
export const layoutNames = Object.keys(layouts) as LayoutName[];

export function isLayoutName(name: string): name is LayoutName {
  return Object.hasOwn(layouts, name);
}

/** Builds the named layout. */
export function createLayout(name: LayoutName, options?: LayoutOptions): Layout {
  return layouts[name](options);
}

/** Prefixes a layout's default key prefix with a namespace (`ns:stoplight:v6`). */
export function namespacedLayout(name: LayoutName, namespace: string, options: LayoutOptions = {}): Layout {
  const plain = createLayout(name, options);
  return createLayout(name, { ...options, prefix: `${namespace}:${plain.prefix}` });
}

export type { Layout } from './types.js';
