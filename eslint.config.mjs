// Flat ESLint config for the whole workspace (projects do not need their own).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

export default tseslint.config(
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/node_modules', '**/coverage', '**/.nx', '**/tmp', 'data/**'],
  },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          banTransitiveDependencies: true,
          allow: [],
          depConstraints: [
            // Scope: a project may use its own scope and the shared libs, never another app's scope.
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:auth', onlyDependOnLibsWithTags: ['scope:auth', 'scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            { sourceTag: 'scope:query', onlyDependOnLibsWithTags: ['scope:query', 'scope:shared'] },
            { sourceTag: 'scope:metering', onlyDependOnLibsWithTags: ['scope:metering', 'scope:shared'] },
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
            // Type layering: app -> data/util, data -> data/util, util -> util. Nothing imports an app.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:data', 'type:util'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:data', 'type:util'] },
            { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:data', 'type:util'], notDependOnLibsWithTags: ['type:app'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'], notDependOnLibsWithTags: ['type:app'] },
            // The broker and Redis clients have one owner each: libs/transport (@nestjs/microservices) and
            // libs/redis (ioredis). Everything else goes through them, so swapping either touches one lib.
            { sourceTag: 'type:app', bannedExternalImports: ['ioredis', '@nestjs/microservices'] },
            { sourceTag: 'type:e2e', bannedExternalImports: ['ioredis', '@nestjs/microservices'] },
            { sourceTag: 'broker:none', bannedExternalImports: ['ioredis', '@nestjs/microservices'] },
            { sourceTag: 'broker:redis', bannedExternalImports: ['@nestjs/microservices'] },
            { sourceTag: 'broker:transport', bannedExternalImports: ['ioredis'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Rules that need the types: a promise nobody awaits or catches (a forgotten `await`, an async callback where
    // the caller ignores the promise) passes review and loses its error. Each project's tsconfig.json covers its
    // src/ and test/; the project service finds it per file, so no list of tsconfigs is kept here.
    files: ['apps/*/src/**/*.ts', 'apps/*/test/**/*.ts', 'libs/*/src/**/*.ts', 'libs/*/test/**/*.ts', 'apps/*/bench/**/*.ts', 'libs/*/bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // No import cycles inside a project: a cycle makes load order decide what a module sees (an import that is
    // still undefined at start-up) and means two files are one concern split in two. Relative imports are followed;
    // `@adintel/*` libs are not resolved here on purpose: cycles between projects are Nx's
    // enforce-module-boundaries' job. Type-only imports are not followed (the rule skips them: they vanish at build).
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    // Test-only code stays out of production: libs/testing (tag type:testing) starts processes and private
    // Redis servers for tests. Specs and test/ folders may import it; nothing under an src/ folder may.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@adintel/testing', message: 'test-only (tag type:testing): import it from test/ code, not from src/' }],
          patterns: [{ group: ['**/libs/testing/**'], message: 'test-only (tag type:testing): import it from test/ code, not from src/' }],
        },
      ],
    },
  },
  // query-api's store port and engines (apps/query-api/src/store) import no feature folder (media/, live/, ads/...):
  // the port owns every type it speaks, features depend on it, never the other way. One block per folder depth, so
  // "up to src/, then into a folder" is caught however deep the importing file sits; src/config.ts (a file) stays
  // allowed.
  ...[1, 2, 3].map((depth) => ({
    files: [`apps/query-api/src/store/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@adintel/testing', message: 'test-only (tag type:testing): import it from test/ code, not from src/' }],
          patterns: [
            { group: ['**/libs/testing/**'], message: 'test-only (tag type:testing): import it from test/ code, not from src/' },
            {
              group: [`${'../'.repeat(depth)}*/**`],
              message: 'store/ imports no feature folder of query-api: move the type into store/ (the port owns what it speaks)',
            },
          ],
        },
      ],
    },
  })),
  {
    // Config files and Node scripts are CommonJS / plain Node.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Node tool scripts (tools/*) read the one route table of tools/dev-stack by path; they are not part of the
    // apps' module graph.
    files: ['tools/**/*.mjs'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // Build configs share tools/webpack; they are not part of the apps' module graph.
    files: ['**/webpack.config.cjs'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
);
