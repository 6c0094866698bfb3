export * from './tool-definition';
export * from './costs';
export * from './tools';
export * from './arguments';
export * from './derive-args';
export * from './fields';
export * from './descriptions';
export * from './priced-operations';
