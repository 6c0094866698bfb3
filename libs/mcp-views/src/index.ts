export * from './view-catalogue';
export * from './built-views';
