import type { ClientModelFactory } from '../types.js';

/** The sliding-log model: placeholder until it is written (it refuses to model anything). */
export const slidingLogModel: ClientModelFactory = () => ({
  decide: () => {
    throw new Error('the sliding-log model is not written yet');
  },
});
