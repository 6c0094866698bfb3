export * from './request-context';
export * from './logger';
export * from './http-request-logging';
export * from './health';
export * from './http-app';
export * from './body-failure';
export * from './metrics';
export * from './graceful-shutdown';
