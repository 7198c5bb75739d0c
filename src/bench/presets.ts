import { readFileSync } from 'node:fs';
import { packagePath } from '../core/package-root.js';

/** One published cell: KB per light for each layout. */
export interface PublishedRow {
  readonly windowSeconds: number;
  readonly rate: number;
  readonly eventsInWindow: number;
  readonly kb: Readonly<Record<string, number>>;
}

/** A named matrix of windows and rates, with published figures when it has them. */
export interface Preset {
  readonly name: string;
  readonly description: string;
  readonly windows: readonly number[];
  readonly rates: readonly number[];
  readonly published: readonly PublishedRow[];
  readonly source?: string;
}

interface BlogTableFile {
  source: string;
  rows: ({ windowSeconds: number; rate: number; eventsInWindow: number } & Record<string, number>)[];
}

function blogPreset(): Preset {
  const file = JSON.parse(readFileSync(packagePath('fixtures/blog-table.json'), 'utf8')) as BlogTableFile;
  const published = file.rows.map(({ windowSeconds, rate, eventsInWindow, ...kb }) => ({
    windowSeconds,
    rate,
    eventsInWindow,
    kb,
  }));
  return {
    name: 'blog',
    description: 'the published 5.x vs 6.0 table: rates 10 and 100, windows 1, 3, 5 and 10 minutes',
    windows: [...new Set(published.map((r) => r.windowSeconds))],
    rates: [...new Set(published.map((r) => r.rate))],
    published,
    source: file.source,
  };
}

/** Presets by name; `--preset` choices come from here. */
export const presets: Readonly<Record<string, () => Preset>> = { blog: blogPreset };

/** The published figure for a cell, if the preset has one. */
export function publishedKb(preset: Preset | undefined, layout: string, windowSeconds: number, rate: number): number | undefined {
  return preset?.published.find((r) => r.windowSeconds === windowSeconds && r.rate === rate)?.kb[layout];
}
