export * from './app-process';
export * from './free-port';
export * from './private-redis';
export * from './wait-until';
export * from './redis-monitor';
export * from './seeded-store';
export * from './calibration';
export * from './sqlite-wal';
