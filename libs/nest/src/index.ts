export * from './config';
export * from './di-tokens';
export * from './json-logger';
export * from './read-models';
export * from './event-store';
export * from './vault-core.module';
export * from './use-cases';
export * from './metrics';
