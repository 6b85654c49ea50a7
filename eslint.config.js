// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * One `no-restricted-imports` block per layer: `forbid` names server folders (or root modules) that the layer's
 * files must not import. Relative specifiers are matched, so `../append/pipeline.ts` hits the `append` entry.
 * @param {{ files: string[], forbid: string[], why: string }[]} layers
 */
function layerRules(layers) {
  return layers.map(({ files, forbid, why }) => ({
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: forbid.map((name) => (name.endsWith('.ts') ? `**/${name}` : `**/${name}/**`)),
              message: why,
            },
          ],
        },
      ],
    },
  }));
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'bench/results/**',
      'test/browser/dist/**',
      'examples/*/dist/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name=/^(only|skip|todo)$/]',
          message: 'No focused, skipped or todo tests on main.',
        },
      ],
    },
  },
  {
    files: [
      'shared/**/*.ts',
      'client/**/*.ts',
      'react/**/*.ts',
      'ai-sdk/**/*.ts',
      'inspector/src/**/*.ts',
      'inspector/src/**/*.tsx',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'ws', 'ioredis', 'pino', 'prom-client', '../server/*'],
              message:
                'shared/, client/, react/ and ai-sdk/ run in browsers: no Node-only imports (client transport goes through #transport).',
            },
          ],
        },
      ],
    },
  },
  // The layer picture of docs/architecture.md: each folder imports only from the layers below it.
  ...layerRules([
    {
      files: ['server/store/**/*.ts'],
      forbid: ['append', 'fanout', 'ws', 'http', 'cli', 'auth', 'limits', 'hub.ts', 'config.ts', 'client'],
      why: 'server/store is the storage seam: it imports only shared/ and server/store/.',
    },
    {
      files: ['server/auth/**/*.ts', 'server/limits/**/*.ts'],
      forbid: ['append', 'fanout', 'ws', 'cli', 'hub.ts', 'client'],
      why: 'auth/ and limits/ are policies: they know nothing of the append path, fan-out or transports.',
    },
    {
      files: ['server/append/**/*.ts'],
      forbid: ['fanout', 'ws', 'http', 'cli', 'hub.ts', 'client'],
      why: 'append/ commits through the store; fan-out observes commits, transports call in (hub.ts wires them).',
    },
    {
      files: ['server/fanout/**/*.ts'],
      forbid: ['append', 'ws', 'http', 'cli', 'hub.ts', 'client'],
      why: 'fanout/ consumes the store; transports call in (hub.ts wires them).',
    },
    {
      files: ['server/ws/**/*.ts', 'server/http/**/*.ts'],
      forbid: ['cli', 'hub.ts', 'client'],
      why: 'transports are wired by hub.ts and know nothing of the CLI.',
    },
    {
      files: ['server/hub-error.ts', 'server/logger.ts', 'server/metrics.ts'],
      forbid: ['append', 'fanout', 'ws', 'http', 'cli', 'auth', 'limits', 'store', 'hub.ts', 'config.ts', 'client'],
      why: 'the server kernel (errors, logging, metrics) is imported by every layer and imports none of them.',
    },
  ]),
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['client/transport-node.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
