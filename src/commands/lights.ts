import { Command } from 'commander';
import { layoutListOption, runList } from './inspect.js';
import { action } from './lifecycle.js';
import { addJsonOption, addRedisOptions, type RedisFlags } from './options.js';

/** `swc lights`: the short name of `swc inspect --list`. */
export function lightsCommand(): Command {
  const command = new Command('lights')
    .description(
      'list every light of every registered layout on a Redis (SCAN, read-only): layout, keys, bytes, window span; largest first',
    )
    .addOption(layoutListOption());
  addRedisOptions(command, { privateServer: false });
  addJsonOption(command);
  return command.action(action(async (flags: RedisFlags & { json?: boolean; layout?: string[] }) => runList(flags)));
}
