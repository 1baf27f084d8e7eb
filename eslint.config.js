// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-check/', 'node_modules/', 'bench/results/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', fetch: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // The CLI and bench scripts talk to a terminal on purpose.
    files: ['src/cli.ts', 'src/cli/**', 'bench/**', 'demo/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // CommonJS config files of tools (dependency-cruiser reads .cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Property tests take fc from test/helpers/fast-check.ts, which sets the seed (FC_SEED).
      'no-restricted-imports': ['error', { paths: [{ name: 'fast-check', message: "import fc from test/helpers/fast-check.ts (it sets the seed)" }] }],
    },
  },
  {
    files: ['test/helpers/fast-check.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
