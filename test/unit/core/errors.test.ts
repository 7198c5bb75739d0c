import { describe, expect, it } from 'vitest';
import {
  CommandRefusedError,
  EnvironmentError,
  ExitCode,
  FindingError,
  RedisUnavailableError,
  RefusalError,
  SwcError,
  UsageError,
} from '../../../src/core/errors.js';
import { classifyRedisError } from '../../../src/redis/errors.js';

describe('named errors', () => {
  it.each([
    ['UsageError', new UsageError('m'), ExitCode.usage],
    ['RedisUnavailableError', new RedisUnavailableError('m'), ExitCode.runtime],
    ['CommandRefusedError', new CommandRefusedError('m'), ExitCode.runtime],
    ['RefusalError', new RefusalError('m'), ExitCode.runtime],
    ['FindingError', new FindingError('m'), ExitCode.finding],
    ['EnvironmentError', new EnvironmentError('m'), ExitCode.runtime],
  ] as const)('%s carries its exit code and name, and at() keeps its class', (name, err, code) => {
    expect(err).toBeInstanceOf(SwcError);
    expect(err.exitCode).toBe(code);
    expect(err.name).toBe(name);
    const placed = err.at('in cell 1/2');
    expect(placed.message).toBe('m (in cell 1/2)');
    expect(placed.constructor).toBe(err.constructor);
    expect(placed.exitCode).toBe(code);
  });

  it('keeps the cause it is given', () => {
    const cause = new Error('underneath');
    expect(new FindingError('denied', { cause }).cause).toBe(cause);
    expect(new RefusalError('refused', { cause }).cause).toBe(cause);
  });

  it('an error reply that is no known server state becomes a CommandRefusedError naming the command', () => {
    const reply = Object.assign(new Error('ERR something odd'), { name: 'ReplyError' });
    const classified = classifyRedisError(reply, { command: 'CONFIG GET' });
    expect(classified).toBeInstanceOf(CommandRefusedError);
    expect((classified as SwcError).message).toBe('Redis refused CONFIG GET: ERR something odd');
    expect((classified as SwcError).exitCode).toBe(ExitCode.runtime);
  });
});
