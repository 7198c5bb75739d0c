import type { ClientAlgorithm, ClientModelFactory } from '../types.js';
import { fixedWindowModel } from './fixed-window.js';
import { slidingLogModel } from './sliding-log.js';
import { twoWindowModel } from './two-window.js';

/** The model verify holds each algorithm to. */
export const MODELS: Readonly<Record<ClientAlgorithm, ClientModelFactory>> = {
  'fixed-window': fixedWindowModel,
  'sliding-log': slidingLogModel,
  'two-window': twoWindowModel,
};
