// Lints the regular expressions of the source for super-linear backtracking (issue 18: input bounded before any
// regular expression). Only the regexp rules run: typechecking is `pnpm typecheck`'s job.
import tsParser from '@typescript-eslint/parser';
import regexp from 'eslint-plugin-regexp';

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '.infra/**', 'data/**', 'packages/console/dist/**'] },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { regexp },
    // Inline directives are ignored: a regex cannot be exempted by a comment, and the console's react-hooks comments name
    // a plugin this lint does not load.
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    rules: {
      // A pattern that can backtrack polynomially (e.g. /(a+)+$/, /[. ]+$/ on ". . . x") is an error.
      'regexp/no-super-linear-backtracking': 'error',
      // A pattern whose unanchored search moves across the input in quadratic time (e.g. /\/+$/ on "////x").
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // Tests, benchmarks, scripts and examples match only their own output, never a user's input: the backtracking
    // rule still holds for them, the quadratic-move rule does not.
    files: ['**/test/**', '**/e2e/**', 'bench/**', 'scripts/**', 'examples/**', '**/*.test.ts'],
    rules: { 'regexp/no-super-linear-move': 'off' },
  },
];
