import { Command } from 'commander';
import { ExitCode } from '../core/errors.js';
import { action } from './lifecycle.js';
import type { Shard } from '../run/open.js';
import { addJsonOption, addRedisOptions, printJson, targetFromFlags, useColor, type RedisFlags } from './options.js';

interface DoctorFlags extends RedisFlags {
  json?: boolean;
  writeCheck?: boolean;
}

/** `swc doctor`: can this Redis run swc, and will its figures be comparable? */
export function doctorCommand(): Command {
  const command = new Command('doctor')
    .description('check a Redis (or the private one): version, allocator, listpack limits, and that every script loads')
    .addHelpText(
      'after',
      '\nExit codes: 0 ready, 1 a check failed, 2 bad usage, 3 Redis unreachable.\n\nExamples:\n  swc doctor\n  swc doctor --redis-url redis://127.0.0.1:6379 --json',
    );
  command.option(
    '--write-check',
    'also load the scripts and probe with writes under swc-bench:* on a server swc did not start (by default doctor sends it no SCRIPT LOAD and no write)',
  );
  addRedisOptions(command, { privateServer: true });
  addJsonOption(command);
  return command.action(
    action(async (flags: DoctorFlags) => {
      const [
        { estimatePeakBytes },
        { defaultBenchPlan },
        { defaultLayoutNames },
        { diagnose },
        { doctorDocument, renderDiagnosis },
        { proseWidth, wrapText },
        { redactUrl },
      ] = await Promise.all([
        import('../bench/footprint.js'),
        import('../bench/defaults.js'),
        import('../layouts/index.js'),
        import('../doctor/diagnose.js'),
        import('../report/doctor.js'),
        import('../report/width.js'),
        import('../redis/url.js'),
      ]);
      const { session } = (await targetFromFlags(flags)).shards[0] as Shard;
      // Headroom is judged against the README's first bench, with its defaults and the bench's own estimator.
      const peak = estimatePeakBytes(defaultBenchPlan(defaultLayoutNames));
      const readOnly = !session.server && flags.writeCheck !== true;
      const diagnosis = await diagnose(session.redis, {
        peakBytes: peak.bytes,
        peakFor: 'the default bench (--rate 100 --window 300)',
        readOnly,
        privateServer: Boolean(session.server),
      });
      const where = session.server ? `private redis-server on port ${session.server.port}` : redactUrl(session.url);
      if (flags.json) {
        printJson(doctorDocument(diagnosis, where, Boolean(session.server)));
      } else {
        process.stdout.write(wrapText(renderDiagnosis(diagnosis, where, useColor()), proseWidth(), 6));
      }
      return diagnosis.ok ? ExitCode.ok : ExitCode.finding;
    }),
  );
}
