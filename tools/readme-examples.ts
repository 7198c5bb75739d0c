/**
 * The examples of README.md and docs/tour.md, run as a user would run them, and their output
 * written back under each example (`npm run docs:figures`), or only checked
 * (`--check`: every example exits 0 and no line is wider than 80 columns;
 * the CLI test lane runs this).
 *
 * An example is a pair of markers in README.md or docs/tour.md:
 *
 *   <!-- example: swc bench --rate 100 --window 300 -->
 *   …output, replaced on every run…
 *   <!-- /example -->
 *
 * `example app:` runs the command against a private server holding the
 * lights of `swc demo` (a small Stoplight application: 5.x and 6.0 lights,
 * red, yellow, recovered, locked and default-config ones), with REDIS_URL
 * pointing at it; plain `example:`
 * runs with no REDIS_URL, so `bench` starts its own private server. The
 * `first-commands` figure is the wall time of the first example, measured
 * in the same run. `example lines=N:` shows the first N lines of the output
 * and says how many follow (the check still reads every line).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { runDemo } from '../src/demo/demo.js';
import { startPrivateServer, type PrivateServer } from '../src/redis/server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The documents whose examples are run, in order: the README's first example is the `first-commands` figure. */
const DOCUMENTS = [join(ROOT, 'README.md'), join(ROOT, 'docs/tour.md')];
const WIDTH = 80;
const EXAMPLE = /<!-- example( app)?(?: lines=(\d+))?: (.+?) -->\n[\s\S]*?<!-- \/example -->/g;
const FIGURE = /<!-- figure: first-commands -->\n[\s\S]*?<!-- \/figure -->/;

interface Run {
  readonly command: string;
  readonly code: number | null;
  readonly stdout: string;
  readonly seconds: number;
}

function argvOf(command: string): string[] {
  const words = command.match(/'[^']*'|\S+/g) ?? [];
  const args = words.map((word) => word.replace(/^'(.*)'$/, '$1'));
  if (args[0] !== 'swc') throw new Error(`an example must start with swc: ${command}`);
  return args.slice(1);
}

function run(command: string, redisUrl: string | undefined): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, COLUMNS: String(WIDTH), NO_COLOR: '1' };
  delete env.REDIS_URL;
  if (redisUrl) env.REDIS_URL = redisUrl;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const args = argvOf(command);
    // Progress goes to stderr, which the README does not show; commands without progress take no such flag.
    if (args[0] === 'bench' || args[0] === 'verify') args.push('--no-progress');
    const child = spawn(process.execPath, [join(ROOT, 'bin/swc.js'), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      resolve({ command, code, stdout, seconds });
    });
  });
}

/** A private server holding `swc demo`'s lights (src/demo/): the clock is the server's own. */
async function seededApp(): Promise<PrivateServer> {
  const server = await startPrivateServer();
  const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    await runDemo(redis, { marked: false });
  } finally {
    redis.disconnect();
  }
  return server;
}

function block(run: Run, lines: number | undefined): string {
  const status = run.code === 0 ? '' : `\n(exit ${run.code})`;
  const all = run.stdout.trimEnd().split('\n');
  const shown = lines === undefined || all.length <= lines ? all : [...all.slice(0, lines), `… (${all.length - lines} more lines)`];
  return '```text\n' + shown.join('\n') + status + '\n```';
}

async function main(): Promise<number> {
  const check = process.argv.includes('--check');
  const texts = DOCUMENTS.map((file) => readFileSync(file, 'utf8'));
  const examples = texts.flatMap((text, doc) =>
    [...text.matchAll(EXAMPLE)].map((m) => ({
      doc,
      whole: m[0],
      app: Boolean(m[1]),
      lines: m[2] === undefined ? undefined : Number(m[2]),
      command: m[3] ?? '',
    })),
  );
  // Seeded right before the first example that reads it, so its lights are as fresh as `swc demo`'s.
  let app: PrivateServer | undefined;
  const problems: string[] = [];
  const runs: Run[] = [];
  try {
    for (const example of examples) {
      if (example.app) app ??= await seededApp();
      process.stderr.write(`docs: ${example.command}\n`);
      const result = await run(example.command, example.app ? app?.url : undefined);
      runs.push(result);
      if (result.code !== 0) problems.push(`${example.command}: exit ${result.code}`);
      const wide = result.stdout.split('\n').filter((line) => [...line].length > WIDTH);
      if (wide.length > 0) problems.push(`${example.command}: ${wide.length} line(s) wider than ${WIDTH} columns`);
      const marker = `example${example.app ? ' app' : ''}${example.lines === undefined ? '' : ` lines=${example.lines}`}`;
      texts[example.doc] = (texts[example.doc] as string).replace(
        example.whole,
        `<!-- ${marker}: ${example.command} -->\n${block(result, example.lines)}\n<!-- /example -->`,
      );
    }
  } finally {
    await app?.stop();
  }
  const first = runs[0];
  if (first) {
    const figure = `_On this repository's 2-core test machine the first command's benchmark took ${first.seconds.toFixed(0)} s (regenerated by \`npm run docs:figures\`)._`;
    texts[0] = (texts[0] as string).replace(FIGURE, `<!-- figure: first-commands -->\n${figure}\n<!-- /figure -->`);
  }
  for (const problem of problems) process.stderr.write(`docs: ${problem}\n`);
  if (!check) DOCUMENTS.forEach((file, i) => writeFileSync(file, texts[i] as string));
  return problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`docs: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(3);
  },
);
