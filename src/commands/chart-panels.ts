/** `--chart-panels`: its parser and help text, shared by bench and chart (no renderer loaded). */
import { UsageError } from '../core/errors.js';
import { DEFAULT_PANELS, PANEL_NAMES, type PanelName } from '../report/chart-panel-names.js';
import { shownDeep } from '../safety/text.js';

/** `--chart-panels hero,latency`: known panel names (or `all`), in the order given, each once. */
export function parseChartPanels(flag: string, value: string): PanelName[] {
  const accepted = `${PANEL_NAMES.join(', ')}, all`;
  const names = value.split(',').map((n) => n.trim());
  if (names.every((n) => n.length === 0)) throw new UsageError(`${flag}: expected one or more of ${accepted}, got "${value}"`);
  // An empty name (`hero,,window`, a trailing comma) is a typo, refused like an unknown one.
  if (names.length > 1 && names.some((n) => n.length === 0)) {
    throw new UsageError(`${flag}: an empty panel name in "${shownDeep(value)}"; expected names separated by single commas: ${accepted}`);
  }
  const out: PanelName[] = [];
  for (const name of names) {
    if (name === 'all') out.push(...PANEL_NAMES);
    else {
      const known = PANEL_NAMES.find((p) => p === name);
      if (!known) throw new UsageError(`${flag}: unknown panel "${shownDeep(name)}"; accepted: ${accepted}`);
      out.push(known);
    }
  }
  return [...new Set(out)];
}

/** The help text of `--chart-panels`, shared by bench and chart. */
export const CHART_PANELS_HELP = `panels to draw, comma-separated: hero (memory per light against window at the highest rate, values and ratio written on it), window (the same at every rate), rate (memory against rate, one per window), latency (p50 and p99 against window with their range over the rounds), or all (default: ${DEFAULT_PANELS.join(',')})`;
