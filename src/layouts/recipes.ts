/**
 * How a layout object was built, so that a use case given a layout (not a
 * name) can build it again under a run's namespace: the guarded run names
 * its layouts and builds each with its own prefix (src/run/guarded-run.ts),
 * and a library caller hands `verifyLayout` a layout it built with
 * `createLayout` or `loadManifestLayout`. {@link withLayoutsOf} lets such
 * layouts be built by name for the length of one call (one async context:
 * two calls at once each see their own), without touching the registry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Layout, LayoutOptions } from './types.js';

/** What built a layout: its name, the builder and the options it was given. */
export interface LayoutRecipe {
  readonly name: string;
  readonly create: (options?: LayoutOptions) => Layout;
  readonly options: LayoutOptions;
}

const recipes = new WeakMap<Layout, LayoutRecipe>();
const scope = new AsyncLocalStorage<ReadonlyMap<string, LayoutRecipe>>();

/** Notes how `layout` was built (createLayout and loadManifestLayout call it); returns the layout. */
export function remember<T extends Layout>(layout: T, recipe: LayoutRecipe): T {
  recipes.set(layout, recipe);
  return layout;
}

/** How `layout` was built, or undefined for a layout swc did not build (a caller's own class). */
export const recipeOf = (layout: Layout): LayoutRecipe | undefined => recipes.get(layout);

/** The builder of `name` within the current {@link withLayoutsOf}, if it names one of its layouts. */
export function scopedBuilder(name: string): ((options?: LayoutOptions) => Layout) | undefined {
  const recipe = scope.getStore()?.get(name);
  // The options given now (a run's prefix) go over those the layout was built with (its scripts folder).
  return recipe ? (options) => recipe.create({ ...recipe.options, ...options }) : undefined;
}

/**
 * Runs `run` with each of `layouts` buildable by its name (createLayout,
 * namespacedLayout) as it was built, ahead of the registry. A layout without
 * a recipe is left to the registry.
 */
export function withLayoutsOf<T>(layouts: readonly Layout[], run: () => Promise<T>): Promise<T> {
  const map = new Map(scope.getStore() ?? []);
  for (const layout of layouts) {
    const recipe = recipes.get(layout);
    if (recipe) map.set(layout.name, recipe);
  }
  return scope.run(map, run);
}
