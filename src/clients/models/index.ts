import type { ClientAdapter, ClientAlgorithm, ClientModelFactory } from '../types.js';
import { fixedWindowModel } from './fixed-window.js';
import { SLIDING_LOG_DEVIATIONS, slidingLogModel, slidingLogModelWith } from './sliding-log.js';
import { twoWindowModel } from './two-window.js';

/** The model verify holds each algorithm to. */
export const MODELS: Readonly<Record<ClientAlgorithm, ClientModelFactory>> = {
  'fixed-window': fixedWindowModel,
  'sliding-log': slidingLogModel,
  'two-window': twoWindowModel,
};

/**
 * The model verify holds a package to: its algorithm's, with the deviation the package declares (a sliding-log
 * package that logs denied requests, for one); the algorithm's own model when the package declares none.
 */
export function modelOf(adapter: Pick<ClientAdapter, 'packageName' | 'algorithm'>): ClientModelFactory {
  const slidingLog = adapter.algorithm === 'sliding-log' ? SLIDING_LOG_DEVIATIONS[adapter.packageName] : undefined;
  return slidingLog ? slidingLogModelWith(slidingLog) : MODELS[adapter.algorithm];
}
