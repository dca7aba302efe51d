import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Server and CLI processes the tests start run the compiled build: compile it first.
    globalSetup: ['test/helpers/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel forks, each on its own fresh databases.
    pool: 'forks',
    maxWorkers: 2,
    // Vite puts BASE_URL=/ into process.env; server processes the tests start would inherit
    // it, and the service refuses a relative BASE_URL. A real shell has none.
    env: { BASE_URL: '' },
  },
});
