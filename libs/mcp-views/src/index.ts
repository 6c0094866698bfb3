export * from './view-catalogue';
export * from './built-views';
export * from './view-thumbnails';
