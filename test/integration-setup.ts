import { afterAll } from 'vitest';
import { resetLayoutRegistry } from '../src/layouts/index.js';

/**
 * Runs around every integration and CLI test file. Those lanes share one
 * module cache per worker (isolate: false in vitest.config.ts), so module-level state one
 * file leaves behind is the next file's start. The layout registry is the
 * state tests change on purpose or in passing: a manifest file or a variant
 * named to an in-process command registers a layout, and registry.test.ts
 * swaps the manifest loader. Each file puts the registry back as start-up left
 * it, so lists of layouts (schema, scripts, differential, builtin-names) see
 * the built-ins only, as they would in a process of their own.
 */
afterAll(() => {
  resetLayoutRegistry();
});
