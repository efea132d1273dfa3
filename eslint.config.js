// Lint rules: typescript-eslint's recommended set, plus the few rules that catch the bugs a sandbox
// host cannot afford (floating promises lose errors; an `any` from the sandbox skips validation).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'toolchain/**', '**/.next/**', '**/next-env.d.ts'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: [
      '**/*.test.ts',
      '**/test/**',
      'scripts/**',
      '**/bench/**',
      '**/cli/**',
      '**/demo/**',
      'examples/**',
    ],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
