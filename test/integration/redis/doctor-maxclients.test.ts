/** `maxclients 3`: doctor said ready; a bench needs more connections than that (#29). */
import { describe, expect, it } from 'vitest';
import { BENCH_CONNECTIONS, diagnose } from '../../../src/doctor/diagnose.js';
import { withPrivateServer } from '../../helpers.js';

describe('doctor and maxclients', () => {
  it('maxclients 3: the connections check fails, so doctor is not ready', async () => {
    await withPrivateServer({ settings: ['maxclients=3'], allowAnySetting: true }, async (_server, redis) => {
      const diagnosis = await diagnose(redis, { readOnly: true });
      const check = diagnosis.checks.find((c) => c.name === 'connections');
      expect(check?.status).toBe('fail');
      expect(check?.detail).toMatch(new RegExp(`maxclients 3 with 1 connected leaves 3 for swc, which opens ${BENCH_CONNECTIONS} at once`));
      expect(diagnosis.ok).toBe(false);
    });
  });

  it('the default maxclients: ok', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const check = (await diagnose(redis, { readOnly: true })).checks.find((c) => c.name === 'connections');
      expect(check?.status).toBe('ok');
    });
  });
});
