// Shared jest settings: every project's jest.config.cjs uses `preset: '../../jest.preset.cjs'`.
// TypeScript (and the ESM-only @nestjs/* packages) go through @swc/jest with decorator metadata,
// and the tsconfig.base.json path aliases (@adintel/*) map to the libs' sources.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const { compilerOptions } = JSON.parse(readFileSync(join(__dirname, 'tsconfig.base.json'), 'utf8'));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths ?? {}).map(([alias, [target]]) => [
    `^${escape(alias)}$`,
    join(__dirname, target),
  ]),
);

module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.[tj]s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
  moduleNameMapper,
  // Jest's 5 s default bounds a test's (and a hook's) wall time, which a loaded 2-core machine stretches: a gateway
  // suite's start-up hook ran past it at load average 40. Tests bound their own waits; this only catches a hang.
  testTimeout: 30_000,
};
