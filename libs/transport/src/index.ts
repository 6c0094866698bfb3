export * from './redis-connection';
export * from './channels';
export * from './service-error';
export * from './service-client';
export * from './transport-server';
export * from './handle-message';
export * from './rpc-error.filter';
export * from './transport.module';
