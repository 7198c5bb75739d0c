/** The chart's panel names, apart from the chart's model so a command's help can list them without it. */

/**
 * The panels `--chart-panels` selects by name, in the order they are drawn by default when listed.
 * `hero`: memory per light against window at the highest rate, value labels and the ratio written on it;
 * `window`: the same at every rate; `rate`: memory against rate, one per window;
 * `latency`: request latency p50 and p99 against window, one per rate, each point with its range across rounds.
 */
export const PANEL_NAMES = ['hero', 'window', 'rate', 'latency'] as const;
export type PanelName = (typeof PANEL_NAMES)[number];
/** What a chart draws unless `--chart-panels` says otherwise. */
export const DEFAULT_PANELS: readonly PanelName[] = ['hero'];
