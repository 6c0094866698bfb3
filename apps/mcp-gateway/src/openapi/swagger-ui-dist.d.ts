// swagger-ui-dist ships no types; the gateway needs only the folder of its static assets.
declare module 'swagger-ui-dist' {
  export function getAbsoluteFSPath(): string;
}
