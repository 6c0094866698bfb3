export * from './app-process';
export * from './private-redis';
