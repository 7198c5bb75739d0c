// ESLint flat config: typescript-eslint's recommended rules plus the
// type-aware ones that catch real bugs here (a promise nobody awaits, a
// promise passed where a callback's result is ignored), and the library
// boundary of docs/architecture.md (only the CLI prints or exits).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A `let` read by a closure before its one assignment cannot become a `const`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Matching terminal control characters is what the escaping code and its tests are for.
      'no-control-regex': 'off',
    },
  },
  {
    // Library code returns data; printing and exiting belong to the CLI (src/cli.ts, src/commands/).
    files: ['src/**/*.ts'],
    ignores: ['src/cli.ts', 'src/commands/**'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'Only the CLI exits; return an exit code or throw a typed error (src/core/errors.ts).' },
      ],
    },
  },
  {
    // An error says its kind by its class (UsageError, RedisUnavailableError, RefusalError,
    // FindingError, …); only src/core/errors.ts builds an SwcError from a bare exit code.
    files: ['**/*.ts'],
    ignores: ['src/core/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='SwcError']",
          message:
            'Throw a named error of src/core/errors.ts (UsageError, RedisUnavailableError, RefusalError, FindingError, EnvironmentError, …), or add one there.',
        },
      ],
    },
  },
  {
    // A bench run is a sequence of named phases (src/bench/phases/), each short enough to read at once.
    files: ['src/bench/run.ts', 'src/bench/phases/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
      },
    },
  },
);
