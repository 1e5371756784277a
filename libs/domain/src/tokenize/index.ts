export * from './body-path';
export * from './tokenize.plan';
